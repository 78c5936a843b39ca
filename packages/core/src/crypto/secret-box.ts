import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { decodeEncryptionKey } from '../config/load.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM for secrets at rest (provider tokens, API keys, TOTP secrets). Each value gets a random
 * 12-byte IV; the owning row's id is bound as additional data, so a ciphertext copied to another row
 * fails to decrypt. Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(rawKey: string) {
    this.key = decodeEncryptionKey(rawKey);
  }

  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Throws on a tampered value, a wrong key or wrong additional data. */
  decrypt(stored: string, aad: string): string {
    const [version, ivB64, tagB64, bodyB64] = stored.split('.');
    if (version !== VERSION || !ivB64 || !tagB64 || bodyB64 === undefined) throw new Error('malformed encrypted value');
    const iv = Buffer.from(ivB64, 'base64url');
    const tag = Buffer.from(tagB64, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed encrypted value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(bodyB64, 'base64url')), decipher.final()]).toString('utf8');
  }
}
