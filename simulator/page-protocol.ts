import { z } from 'zod';
import type { BotState } from './bot-state.js';
import { SIM_PLATFORMS, type SimPlatform } from './ids.js';
import type { AdmissionPolicy, AudioMode, Load, RefusalScreen } from './schema.js';
import type { Speaking } from './speaking-signals.js';
import type { Traps } from './traps.js';

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
  /** The bot's microphone as the page sends it on (unmuted): 16 kHz s16le, base64; `at` is its last sample's time. */
  z.object({
    type: z.literal('mic-audio'),
    pcm: z.base64().max(64_000),
    at: z.iso.datetime(),
  }),
  /** The average colour of a frame of the bot's camera, as the page shows it (about once a second). */
  z.object({
    type: z.literal('camera-frame'),
    color: z.tuple([
      z.number().int().min(0).max(255),
      z.number().int().min(0).max(255),
      z.number().int().min(0).max(255),
    ]),
    width: z.number().int().min(0).max(10_000),
    height: z.number().int().min(0).max(10_000),
    at: z.iso.datetime(),
  }),
  /** The page stopped showing the bot's camera (turned off, left the call). */
  z.object({ type: z.literal('camera-closed'), at: z.iso.datetime() }),
  /** The page stopped sending the bot's microphone (muted, left the call). */
  z.object({ type: z.literal('mic-closed'), at: z.iso.datetime() }),
  z.object({ type: z.literal('transport'), transport: z.enum(['rtc-loopback', 'webaudio']) }),
  /**
   * The remote video the page has decoded so far (the `load` setting: cameras and the screen share,
   * inbound-rtp framesDecoded summed over every stream, ended ones included), and whether cameras
   * still come in (the page's incoming-video setting on, or a camera not gone yet: Meet's receive
   * resolution "Audio only", Teams' "Turn off incoming video" turn it off).
   */
  z.object({
    type: z.literal('video-received'),
    cameraFrames: z.number().int().min(0),
    screenFrames: z.number().int().min(0),
    incomingVideo: z.boolean(),
  }),
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
  /** The page sends a chat message (the bot typing in the panel's input and sending). */
  z.object({ type: z.literal('chat-send'), text: z.string().trim().min(1).max(2000) }),
]);
export type PageAction = z.infer<typeof pageAction>;

export const sessionQuery = z.object({
  sid: z.string().regex(/^[A-Za-z0-9-]{8,64}$/),
  platform: z.enum(SIM_PLATFORMS),
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
  /** The video and page weight the page carries besides audio. */
  load: Load;
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

/** A chat message as a page shows it; `mine` when this page's session wrote it. */
export interface PageChatMessage {
  id: string;
  sender: string;
  text: string;
  at: string;
  mine: boolean;
}

export type NotFoundReason = 'unknown' | 'ended' | 'bad_passcode';

/** Server-sent events to a page; `event` is the SSE event name. */
export type PageEvent =
  | { event: 'hello'; data: { found: false; reason: NotFoundReason } }
  | {
      event: 'hello';
      data: {
        found: true;
        meeting: PageMeetingView;
        state: BotState;
        refusal: RefusalScreen | null;
        name: string | null;
        /** The account the page is signed in as (its session cookie); null: a guest. */
        signedInAs: string | null;
        /** The chat so far, which the page shows when its panel opens. */
        chat: PageChatMessage[];
      };
    }
  | { event: 'chat'; data: PageChatMessage }
  | { event: 'state'; data: { state: BotState; refusal: RefusalScreen | null } }
  | { event: 'participants'; data: { present: string[] } }
  | { event: 'play'; data: { utteranceId: string } }
  | { event: 'stop'; data: { utteranceIds: string[] } };
