import type { BotState, LeaveReason } from './bot-state.js';
import type { HeardSnapshot } from './hearing.js';
import type { SimPlatform } from './ids.js';
import type { AdmissionPolicy, AudioMode, Load, RefusalScreen, Voice } from './schema.js';
import type { Speaking } from './speaking-signals.js';
import type { Traps } from './traps.js';

/** How the page got its remote audio: a real loopback RTCPeerConnection, or WebAudio when ICE can't connect. */
export type AudioTransport = 'rtc-loopback' | 'webaudio';

export interface BotSnapshot {
  state: BotState;
  sessionId: string | null;
  /** The display name the bot typed (a signed-in bot: its account's), once it asked to join. */
  name: string | null;
  /** The account the bot's page is signed in as (its session cookie); null: a guest. */
  signedInAs: string | null;
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
  /** What the meeting's participants see of the bot's camera. */
  video: BotVideoSnapshot;
  /** The remote video the bot's page received and decoded (the meeting's `load`). */
  receivedVideo: BotReceivedVideoSnapshot;
  /** What the meeting's participants heard from the bot's microphone, one entry per unmuted span. */
  heard: HeardSnapshot[];
  history: { state: BotState; at: string }[];
  /** The screen that refused the bot's join request (the meeting's `refusal`), if one did. */
  refusal: RefusalScreen | null;
}

export interface BotReceivedVideoSnapshot {
  /**
   * Whether others' cameras still come in (the page's incoming-video setting on, or a camera not
   * gone yet); false once the setting is off and the last camera went. Null before the first report.
   */
  incomingVideo: boolean | null;
  /** Video frames the page decoded so far: the participants' cameras, and the screen share. */
  cameraFramesDecoded: number;
  screenFramesDecoded: number;
}

export interface BotVideoSnapshot {
  /** Whether the page is showing the bot's camera now. */
  showing: boolean;
  /** The average colour of the last frame sampled, [r, g, b]; null before the first. */
  averageColor: [number, number, number] | null;
  width: number | null;
  height: number | null;
  sampledAt: string | null;
  /** Frames sampled since the simulator first saw the camera. */
  frames: number;
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

export interface ChatMessageSnapshot {
  /** `c<n>` for a scripted participant's message, `s<n>` for one a page sent. */
  id: string;
  /** The writer's name: the participant's, or the name the bot's page joined with. */
  sender: string;
  text: string;
  /** When the simulator received it (ISO). */
  at: string;
  /** A scripted participant, the bot's page, or another page of the meeting. */
  from: 'participant' | 'bot' | 'page';
  participantId: string | null;
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
  /** The video and page weight the page carries besides audio. */
  load: Load;
  /** Who may join (accounts by name; their tokens stay in the script). */
  access: { signedInOnly: boolean; accounts: { name: string; expired: boolean }[] };
  endAt: number | null;
  bot: BotSnapshot;
  participants: ParticipantSnapshot[];
  utterances: UtteranceSnapshot[];
  /** The meeting chat in the order it was written. */
  chat: ChatMessageSnapshot[];
}

/** A time as the state API writes it: ISO, or null when it has not happened. */
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
