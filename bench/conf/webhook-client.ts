/**
 * The webhook benchmark's client (bench/conf/run.ts forks it): autocannon posting signed
 * `recording.transcript_completed` events, each with a new meeting uuid, from its own process so the
 * client's work (signing, parsing answers) does not share the API's event loop. Reads its settings
 * from the fork's message; sends autocannon's result back and exits.
 */
import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';

interface Settings {
  url: string;
  secret: string;
  duration: number;
  connections: number;
}

process.once('message', async (s: Settings) => {
  let n = 0;
  const cpu0 = process.cpuUsage();
  const result = await autocannon({
    url: s.url,
    method: 'POST',
    connections: s.connections,
    duration: s.duration,
    requests: [
      {
        setupRequest: (req) => {
          n++;
          const body = JSON.stringify({
            event: 'recording.transcript_completed',
            event_ts: Date.now(),
            payload: {
              object: {
                uuid: `bench-${process.pid}-${n}-${Date.now()}`,
                id: n,
                host_id: 'zm-bench',
                topic: `Bench meeting ${n}`,
                recording_files: [],
              },
            },
          });
          const stamp = String(Math.floor(Date.now() / 1000));
          const sig = `v0=${createHmac('sha256', s.secret).update(`v0:${stamp}:${body}`).digest('hex')}`;
          return { ...req, body, headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': stamp, 'x-zm-signature': sig } };
        },
      },
    ],
  });
  const cpu = process.cpuUsage(cpu0);
  process.send?.(
    {
      clientCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
      requests: result.requests.total,
      reqPerSec: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors,
      latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    },
    () => process.exit(0),
  );
});
