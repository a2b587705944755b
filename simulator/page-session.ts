import type { BotState, LeaveReason } from './bot-state.js';
import { BotHearing, type Recognize } from './hearing.js';
import type { PageEvent } from './page-protocol.js';
import type { RefusalScreen } from './schema.js';
import {
  type AudioTransport,
  type BotReceivedVideoSnapshot,
  type BotSnapshot,
  type BotVideoSnapshot,
  iso,
} from './snapshot.js';

/** One open page (an SSE stream) of a session. */
export interface PageConnection {
  send(event: PageEvent): void;
}

/** One page load of a meeting (kept across reloads of the same tab), and where it is in the meeting. */
export interface PageSession {
  id: string;
  state: BotState;
  name: string | null;
  /** The account the page's browser is signed in as (its session cookie, at its latest connect). */
  account: string | null;
  micOn: boolean | null;
  cameraOn: boolean | null;
  openedAt: Date;
  askedAt: Date | null;
  admittedAt: Date | null;
  mediaStartedAt: Date | null;
  leftAt: Date | null;
  leaveReason: LeaveReason | null;
  transport: AudioTransport | null;
  /** What the meeting heard of this session's microphone. */
  hearing: BotHearing;
  /** What the meeting sees of this session's camera. */
  video: BotVideoSnapshot;
  /** The remote video this session's page decoded. */
  receivedVideo: BotReceivedVideoSnapshot;
  history: { state: BotState; at: Date }[];
  /** The screen that refused this session's join request (the meeting's `refusal`), if one did. */
  refusal: RefusalScreen | null;
  connections: Set<PageConnection>;
  admissionTimer: NodeJS.Timeout | undefined;
  goneTimer: NodeJS.Timeout | undefined;
}

/** A page that has just opened on the pre-join form. */
export function openSession(id: string, recognize: Recognize | undefined): PageSession {
  const now = new Date();
  return {
    id,
    state: 'prejoin',
    name: null,
    account: null,
    micOn: null,
    cameraOn: null,
    openedAt: now,
    askedAt: null,
    admittedAt: null,
    mediaStartedAt: null,
    leftAt: null,
    leaveReason: null,
    transport: null,
    hearing: new BotHearing(recognize),
    video: noVideo(),
    receivedVideo: noReceivedVideo(),
    history: [{ state: 'prejoin', at: now }],
    refusal: null,
    connections: new Set(),
    admissionTimer: undefined,
    goneTimer: undefined,
  };
}

/** Every open page of the session gets the event. */
export function sendTo(session: PageSession, event: PageEvent): void {
  for (const connection of session.connections) connection.send(event);
}

/** The state API's `bot`: the session the meeting counts as the bot, or `none` before any page opened. */
export function botSnapshotOf(bot: PageSession | undefined): BotSnapshot {
  if (!bot) {
    return {
      state: 'none',
      sessionId: null,
      name: null,
      signedInAs: null,
      micOn: null,
      cameraOn: null,
      openedAt: null,
      askedAt: null,
      admittedAt: null,
      mediaStartedAt: null,
      leftAt: null,
      leaveReason: null,
      pageConnected: false,
      audioTransport: null,
      heard: [],
      video: noVideo(),
      receivedVideo: noReceivedVideo(),
      history: [],
      refusal: null,
    };
  }
  return {
    state: bot.state,
    sessionId: bot.id,
    name: bot.name,
    signedInAs: bot.account,
    micOn: bot.micOn,
    cameraOn: bot.cameraOn,
    openedAt: bot.openedAt.toISOString(),
    askedAt: iso(bot.askedAt),
    admittedAt: iso(bot.admittedAt),
    mediaStartedAt: iso(bot.mediaStartedAt),
    leftAt: iso(bot.leftAt),
    leaveReason: bot.leaveReason,
    pageConnected: bot.connections.size > 0,
    audioTransport: bot.transport,
    heard: bot.hearing.snapshot(),
    video: bot.video,
    receivedVideo: bot.receivedVideo,
    history: bot.history.map((h) => ({ state: h.state, at: h.at.toISOString() })),
    refusal: bot.refusal,
  };
}

function noVideo(): BotVideoSnapshot {
  return { showing: false, averageColor: null, width: null, height: null, sampledAt: null, frames: 0 };
}

function noReceivedVideo(): BotReceivedVideoSnapshot {
  return { incomingVideo: null, cameraFramesDecoded: 0, screenFramesDecoded: 0 };
}
