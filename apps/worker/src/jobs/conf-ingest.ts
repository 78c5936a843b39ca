import { confIngestJob, ingestRecording } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const confIngestHandler = defineHandler(confIngestJob, (ctx, payload, meta) => ingestRecording(ctx, payload, { jobId: meta.id }));
