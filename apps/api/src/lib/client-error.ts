import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Code } from '@cfaq/core';
import { problem } from './problem.js';

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (a Content-Length that is not a
 * number or disagrees with the body, a bad chunk size, a malformed request line) as problem details,
 * like every other error: Fastify's default wrote `{"error":"Bad Request","message":"Client Error"}`.
 * Oversized headers (431) and a request that timed out (408) keep Node's bodiless answers; a connection
 * already reset or no longer writable is only closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket, headers: Readonly<Record<string, string>> = {}): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const bare = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : null;
  if (bare) {
    socket.end(`HTTP/1.1 ${bare} ${STATUS_CODES[bare]}\r\nConnection: close\r\n\r\n`);
    return;
  }
  const lengthProblem = err.code === 'HPE_INVALID_CONTENT_LENGTH' || err.code === 'HPE_UNEXPECTED_CONTENT_LENGTH';
  const body = JSON.stringify(
    lengthProblem
      ? problem(400, Code.INVALID_CONTENT_LENGTH, 'The Content-Length header is not a valid length for this request')
      : problem(400, Code.BAD_REQUEST, `The request is not well-formed HTTP (${err.code ?? 'parse error'})`),
  );
  // The security headers every answer carries (helmet's, computed once by the app), then this answer's own.
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 400 Bad Request\r\n${extra}Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
