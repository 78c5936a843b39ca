import { createHmac } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from '../crypto/tokens.js';

/** Requests older or newer than this (seconds) are refused: a captured request cannot be replayed later. */
export const WEBHOOK_WINDOW_SECONDS = 300;

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature' };

/**
 * `v0=` + hex HMAC-SHA256(secret, "v0:" + timestamp + ":" + raw body): the provider's signature scheme.
 * The body's bytes go into the MAC as they came (no decoding to a string and encoding back per request).
 */
export function signWebhook(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/**
 * Verifies `x-zm-signature` over the raw request bytes (before any JSON parsing) and the
 * `x-zm-request-timestamp` window, comparing in constant time. Seconds since the epoch; a timestamp in
 * milliseconds is read as such.
 */
export function verifyWebhookSignature(opts: {
  secret: string;
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  nowMs: number;
}): SignatureCheck {
  const { signature, timestamp } = opts;
  if (!signature || !timestamp) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,13}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const n = Number(timestamp);
  const seconds = timestamp.length >= 13 ? n / 1000 : n;
  if (Math.abs(opts.nowMs / 1000 - seconds) > WEBHOOK_WINDOW_SECONDS) return { ok: false, reason: 'stale' };
  const expected = signWebhook(opts.secret, timestamp, opts.rawBody);
  return safeEqual(signature, expected) ? { ok: true } : { ok: false, reason: 'bad_signature' };
}

/** The answer to `endpoint.url_validation`; only ever computed for a request whose signature checked out. */
export const urlValidationResponse = (secret: string, plainToken: string) => ({
  plainToken,
  encryptedToken: hmacSha256Hex(secret, plainToken),
});
