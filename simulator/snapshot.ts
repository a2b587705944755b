import type { BotState, LeaveReason } from './bot-state.js';
import type { SimPlatform } from './ids.js';
import type { AdmissionPolicy, AudioMode, Speaking, Traps, Voice } from './schema.js';

/** How the page got its remote audio: a real loopback RTCPeerConnection, or WebAudio when ICE can't connect. */
export type AudioTransport = 'rtc-loopback' | 'webaudio';

export interface BotSnapshot {
  state: BotState;
  sessionId: string | null;
  /** The display name the bot typed, once it asked to join. */
  name: string | null;
  micOn: boolean | null;
  cameraOn: boolean | null;
  /** ISO times; null until it happened. */
  openedAt: string | null;
  askedAt: string | null;
  admittedAt: string | null;
  /** When media started flowing (admission, or answering the post-admission dialog). */
  mediaStartedAt: string | null;
  leftAt: string | null;
  leaveReason: LeaveReason | null;
  /** Whether the page is connected to the simulator right now. */
  pageConnected: boolean;
  audioTransport: AudioTransport | null;
  history: { state: BotState; at: string }[];
}

export interface ParticipantSnapshot {
  id: string;
  name: string;
  voice: Voice;
  /** Meet's `data-participant-id`. */
  deviceId: string;
  joinAt: number;
  leaveAt: number | null;
  present: boolean;
  joinedAt: string | null;
  leftAt: string | null;
}

export type UtteranceStatus = 'scheduled' | 'sent' | 'playing' | 'played' | 'missed' | 'cut';

export interface UtteranceSnapshot {
  id: string;
  participantId: string;
  speaker: string;
  /** What was said: the scripted text, or the recording's transcript. */
  text: string;
  /** The recording played (`<set>/<name>`, simulator/recordings.ts), or null for the voice speaking `text`. */
  clip: string | null;
  /** Seconds after media start, as scripted. */
  at: number;
  durationSeconds: number;
  status: UtteranceStatus;
  /** Wall-clock start and end of the audio as the bot's page played it (ISO). */
  startedAt: string | null;
  endedAt: string | null;
  /**
   * When the voice in the clip began and stopped (the clip's leading and trailing silence left
   * out), on the page's audio clock mapped to wall time; speechEndedAt is null for a cut clip.
   */
  speechStartedAt: string | null;
  speechEndedAt: string | null;
  /** Meet slot mode: which of the 3 `<audio>` elements carried it. */
  slot: number | null;
  /** True when it played before the page's remote tracks appeared (late-track trap): the bot could not hear it. */
  beforeTracks: boolean | null;
}

export interface MeetingSnapshot {
  id: string;
  platform: SimPlatform;
  passcode: string | null;
  /** Absolute URL a browser opens to join. */
  url: string;
  status: 'open' | 'ended';
  createdAt: string;
  endedAt: string | null;
  admission: AdmissionPolicy;
  audio: { mode: AudioMode; trackDelaySeconds: number };
  traps: Traps;
  /** Which speaking signals the page hides, and Meet's speaking class. */
  speaking: Speaking;
  endAt: number | null;
  bot: BotSnapshot;
  participants: ParticipantSnapshot[];
  utterances: UtteranceSnapshot[];
}
