import { z } from 'zod';
import type { BotState } from './bot-state.js';
import type { SimPlatform } from './ids.js';
import type { AdmissionPolicy, AudioMode, Speaking, Traps } from './schema.js';

/** What the meeting pages report to the simulator (POST /_sim/sessions/:sid/actions). */
export const pageAction = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ask'),
    name: z.string().trim().min(1).max(200),
    micOn: z.boolean(),
    cameraOn: z.boolean(),
  }),
  z.object({ type: z.literal('toggles'), micOn: z.boolean(), cameraOn: z.boolean() }),
  z.object({ type: z.literal('accept-dialog') }),
  z.object({
    type: z.literal('leave'),
    via: z.enum(['leave_button', 'dialog_leave', 'return_home', 'lobby_cancel']),
  }),
  z.object({ type: z.literal('transport'), transport: z.enum(['rtc-loopback', 'webaudio']) }),
  z.object({
    type: z.literal('utterance-started'),
    utteranceId: z.string(),
    at: z.iso.datetime(),
    /** `at` plus the clip's leading silence: when the voice began. */
    speechStartedAt: z.iso.datetime().optional(),
    slot: z.number().int().min(0).max(2).nullable(),
    beforeTracks: z.boolean(),
  }),
  z.object({
    type: z.literal('utterance-ended'),
    utteranceId: z.string(),
    at: z.iso.datetime(),
    /** `at` less the clip's trailing silence; null when the clip was cut short. */
    speechEndedAt: z.iso.datetime().nullable().optional(),
  }),
]);
export type PageAction = z.infer<typeof pageAction>;

export const sessionQuery = z.object({
  sid: z.string().regex(/^[A-Za-z0-9-]{8,64}$/),
  platform: z.enum(['google_meet', 'teams']),
  id: z.string().min(1).max(64),
  p: z.string().max(64).optional(),
});

/** What a page needs to render and play a meeting it joined. */
export interface PageMeetingView {
  id: string;
  platform: SimPlatform;
  spaceId: string;
  admission: AdmissionPolicy['policy'];
  audio: { mode: AudioMode; trackDelaySeconds: number };
  traps: Traps;
  /** Which speaking signals the page hides, and Meet's speaking class. */
  speaking: Speaking;
  participants: { id: string; name: string; deviceId: string }[];
  utterances: {
    id: string;
    participantId: string;
    audioUrl: string;
    durationSeconds: number;
    /** The scripted text or the clip's transcript; only with the `liveCaptions` trap. */
    text?: string;
  }[];
  selfDeviceId: string;
}

export type NotFoundReason = 'unknown' | 'ended' | 'bad_passcode';

/** Server-sent events to a page; `event` is the SSE event name. */
export type PageEvent =
  | { event: 'hello'; data: { found: false; reason: NotFoundReason } }
  | { event: 'hello'; data: { found: true; meeting: PageMeetingView; state: BotState; name: string | null } }
  | { event: 'state'; data: { state: BotState } }
  | { event: 'participants'; data: { present: string[] } }
  | { event: 'play'; data: { utteranceId: string } }
  | { event: 'stop'; data: { utteranceIds: string[] } };
