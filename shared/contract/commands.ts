import { z } from 'zod';
import { TRANSCRIPTION_TASKS } from '../meetings/status.js';

export const leaveCommand = z.object({
  type: z.literal('leave'),
  reason: z.literal('stopped').default('stopped'),
  issuedAt: z.iso.datetime(),
});

export const reconfigureCommand = z.object({
  type: z.literal('reconfigure'),
  language: z.string().min(2).optional(),
  task: z.enum(TRANSCRIPTION_TASKS).optional(),
  botName: z.string().min(1).max(100).optional(),
  issuedAt: z.iso.datetime(),
});

/** What a worker sends a running bot through the meeting's command stream. */
export const botCommand = z.discriminatedUnion('type', [leaveCommand, reconfigureCommand]);
export type BotCommand = z.infer<typeof botCommand>;
