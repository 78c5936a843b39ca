import { type AppError, appError, badRequest, Code, invalidField } from '@cfaq/core';

/**
 * What a request body's bytes must be before any parser reads them. JSON is UTF-8 (RFC 8259 §8.1):
 * Fastify decoded every body as UTF-8 whatever its `charset`, and replaced bytes that are not UTF-8
 * with U+FFFD, so `Café` sent as ISO-8859-1 was stored as `Caf\uFFFD` with a 201. A content coding
 * (gzip, br) was neither applied nor refused: a gzipped body was "not valid JSON", and a plain one
 * labelled gzip was taken as it was. Both are refused, saying so (RFC 9110 §8.4.1: 415).
 */

const unsupported = (detail: string) => appError(415, Code.UNSUPPORTED_MEDIA_TYPE, detail);

/** The coding a request body carries, lower-cased, when it is not the identity (none). */
function bodyCoding(headers: Record<string, string | string[] | undefined>): string | null {
  const value = headers['content-encoding'];
  const text = (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().toLowerCase();
  return text === '' || text === 'identity' ? null : text;
}

/** A 415 for a body sent with a content coding; null for a request without a body or a coding. */
export function codingRefusal(headers: Record<string, string | string[] | undefined>): AppError | null {
  const coding = bodyCoding(headers);
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!coding || !hasBody) return null;
  return unsupported(`Content-Encoding ${coding} is not accepted: send the body uncompressed`);
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** An uploaded text file's content: 400 naming `body.file` when its bytes are not UTF-8 (a BOM is dropped). */
export function utf8File(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidField('body.file', 'must be UTF-8 text (WebVTT is UTF-8): save the file as UTF-8 and upload it again');
  }
}

/**
 * A JSON body's text: 415 when its content-type names a charset other than UTF-8, 400 INVALID_JSON when
 * its bytes are not UTF-8. A byte order mark is dropped, as JSON parsers may (RFC 8259 §8.1).
 */
export function jsonBodyText(contentType: string | undefined, body: Buffer): string {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw unsupported(`A JSON body is UTF-8 (RFC 8259): charset=${charset.slice(0, 40)} is not accepted`);
  try {
    return UTF8.decode(body);
  } catch {
    throw badRequest(Code.INVALID_JSON, 'The body is not valid UTF-8 (RFC 8259: JSON is UTF-8)');
  }
}
