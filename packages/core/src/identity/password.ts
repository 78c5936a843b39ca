import argon2 from 'argon2';
import type { Config } from '../config/schema.js';

export type PasswordHashSettings = Pick<Config, 'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_ITERATIONS' | 'PASSWORD_HASH_PARALLELISM'>;

const optionsOf = (s: PasswordHashSettings) => ({
  type: argon2.argon2id as typeof argon2.argon2id,
  memoryCost: s.PASSWORD_HASH_MEMORY_KIB,
  timeCost: s.PASSWORD_HASH_ITERATIONS,
  parallelism: s.PASSWORD_HASH_PARALLELISM,
});

/** argon2id at the configured cost (PASSWORD_HASH_*). The hash records its parameters, so a change of cost keeps old hashes verifiable. */
export const hashPassword = (password: string, settings: PasswordHashSettings) => argon2.hash(password, optionsOf(settings));

/** True when a stored hash was made at another cost than the configured one: it is re-hashed at the next sign-in. */
export function needsRehash(hash: string, settings: PasswordHashSettings): boolean {
  try {
    const { type: _type, ...params } = optionsOf(settings);
    return argon2.needsRehash(hash, params);
  } catch {
    return false;
  }
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * The address as stored and looked up: trimmed, lower-cased and in Unicode's composed form (NFC), so
 * `é` typed as e + a combining accent is the same address as `é`, not a second account that looks alike.
 */
export const normalizeEmail = (email: string) => email.trim().normalize('NFC').toLowerCase();
