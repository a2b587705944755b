import { z } from 'zod';

/** What a WhisperLive-compatible server sends; times come as numbers or as strings like "1.250". */
export const serverSegment = z.object({
  start: z.coerce.number(),
  end: z.coerce.number(),
  text: z.string(),
  /** Older servers leave it out: then every segment but the last is complete. */
  completed: z.boolean().optional(),
});
export type ServerSegment = z.infer<typeof serverSegment>;

export const serverMessage = z.object({
  uid: z.string().optional(),
  /** "SERVER_READY", "DISCONNECT", or with a status: the wait in minutes / the error text. */
  message: z.union([z.string(), z.number()]).optional(),
  status: z.string().optional(),
  segments: z.array(serverSegment).optional(),
  language: z.string().optional(),
  language_prob: z.number().optional(),
});
export type ServerMessage = z.infer<typeof serverMessage>;

export interface ClientConfig {
  uid: string;
  language: string | null;
  task: 'transcribe' | 'translate';
  model: string;
  use_vad: boolean;
}

/** Sent (as binary, like the audio) when no more audio will come. */
export const END_OF_AUDIO = new TextEncoder().encode('END_OF_AUDIO');
