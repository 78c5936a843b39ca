import { confProcessMeetingJob, processMeeting } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const confProcessMeetingHandler = defineHandler(confProcessMeetingJob, (ctx, payload) => processMeeting(ctx, payload.meetingId));
