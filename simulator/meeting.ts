import {
  type BotState,
  canAskToJoin,
  canTransition,
  isInCall,
  isWaitingOrIn,
  type LeaveReason,
} from './bot-state.js';
import { conflict, notFound } from './errors.js';
import { BotHearing, type Recognize } from './hearing.js';
import type { SimPlatform } from './ids.js';
import type { PageAction, PageChatMessage, PageEvent, PageMeetingView } from './page-protocol.js';
import type { CreateMeeting, RefusalScreen } from './schema.js';
import type {
  AudioTransport,
  BotSnapshot,
  ChatMessageSnapshot,
  BotReceivedVideoSnapshot,
  BotVideoSnapshot,
  MeetingSnapshot,
  ParticipantSnapshot,
  UtteranceSnapshot,
  UtteranceStatus,
} from './snapshot.js';
import {
  buildTimeline,
  type PlannedChatMessage,
  type PlannedParticipant,
  type PlannedUtterance,
  type TimelineEvent,
} from './timeline.js';

/** One open page (an SSE stream) of a session. */
export interface PageConnection {
  send(event: PageEvent): void;
}

interface Session {
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

interface Presence {
  present: boolean;
  joinedAt: Date | null;
  leftAt: Date | null;
}

interface UtterancePlayback {
  status: UtteranceStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  speechStartedAt: Date | null;
  speechEndedAt: Date | null;
  slot: number | null;
  beforeTracks: boolean | null;
}

export interface MeetingSetup {
  id: string;
  platform: SimPlatform;
  passcode: string | null;
  spaceId: string;
  url: string;
  script: CreateMeeting;
  participants: PlannedParticipant[];
  utterances: PlannedUtterance[];
  /** What the scripted people write in the chat; none when absent. */
  chat?: PlannedChatMessage[];
  audioUrlOf: (utteranceId: string) => string;
  /** How long a page may be gone (e.g. reloading) before the bot counts as having left. */
  pageGoneGraceMs?: number;
  /** What recognizes the bot's speech (pocketsphinx by default). */
  recognize?: Recognize;
}

/** A message in the meeting's chat: a scripted participant's, or one a page sent. */
interface ChatEntry {
  id: string;
  sender: string;
  text: string;
  at: Date;
  participantId: string | null;
  /** The session that sent it (a page), or null for a scripted participant. */
  sessionId: string | null;
}

const DEFAULT_PAGE_GONE_GRACE_MS = 3000;
const UNSTARTED_GRACE_SECONDS = 15;

/**
 * One scripted meeting: the bot's sessions and their states, the admission policy, and the
 * timeline of people joining, speaking and leaving that starts when the bot's media starts.
 */
export class Meeting {
  readonly id: string;
  readonly platform: SimPlatform;
  readonly passcode: string | null;
  readonly createdAt = new Date();
  private status: 'open' | 'ended' = 'open';
  private endedAt: Date | null = null;
  private readonly sessions = new Map<string, Session>();
  private botSessionId: string | null = null;
  /** Join requests the meeting's `refusal` has turned away so far. */
  private refusedJoins = 0;
  private readonly presence = new Map<string, Presence>();
  private readonly playback = new Map<string, UtterancePlayback>();
  private timelineStartedAt: Date | null = null;
  private timelineTimers: NodeJS.Timeout[] = [];
  private everyoneLeft = false;
  private readonly pageGoneGraceMs: number;
  private readonly chatLog: ChatEntry[] = [];
  /** Accounts whose session cookie no longer signs in (`access.accounts[].expired`, or expired since). */
  private readonly expiredAccounts = new Set<string>();
  private sentChatCount = 0;

  constructor(private readonly setup: MeetingSetup) {
    this.id = setup.id;
    this.platform = setup.platform;
    this.passcode = setup.passcode;
    this.pageGoneGraceMs = setup.pageGoneGraceMs ?? DEFAULT_PAGE_GONE_GRACE_MS;
    for (const account of setup.script.access.accounts)
      if (account.expired) this.expiredAccounts.add(account.name);
    for (const participant of setup.participants) {
      const here = participant.joinAt === 0;
      this.presence.set(participant.id, {
        present: here,
        joinedAt: here ? this.createdAt : null,
        leftAt: null,
      });
    }
    for (const utterance of setup.utterances) {
      this.playback.set(utterance.id, {
        status: 'scheduled',
        startedAt: null,
        endedAt: null,
        speechStartedAt: null,
        speechEndedAt: null,
        slot: null,
        beforeTracks: null,
      });
    }
  }

  get isOpen(): boolean {
    return this.status === 'open';
  }

  // ---- pages ----

  /**
   * A page opened (or reconnected). `accountToken` is the session cookie its browser presented
   * (`sim_account`), if any: it signs the page in when it names an account that has not expired.
   */
  connect(sessionId: string, connection: PageConnection, accountToken: string | null = null): void {
    if (this.status === 'ended' && !this.sessions.has(sessionId)) {
      connection.send({ event: 'hello', data: { found: false, reason: 'ended' } });
      return;
    }
    let session = this.sessions.get(sessionId);
    if (!session) {
      const now = new Date();
      session = {
        id: sessionId,
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
        hearing: new BotHearing(this.setup.recognize),
        video: noVideo(),
        receivedVideo: noReceivedVideo(),
        history: [{ state: 'prejoin', at: now }],
        refusal: null,
        connections: new Set(),
        admissionTimer: undefined,
        goneTimer: undefined,
      };
      this.sessions.set(sessionId, session);
      if (!this.botSessionId || this.bot()?.askedAt === null) this.botSessionId = sessionId;
    }
    clearTimeout(session.goneTimer);
    session.goneTimer = undefined;
    session.connections.add(connection);
    session.account = this.signedInAs(accountToken);
    connection.send({
      event: 'hello',
      data: {
        found: true,
        meeting: this.pageView(session),
        state: session.state,
        refusal: session.refusal,
        name: session.account ?? session.name,
        signedInAs: session.account,
        chat: this.chatLog.map((entry) => this.chatViewFor(entry, sessionId)),
      },
    });
    connection.send({ event: 'participants', data: { present: this.presentIds() } });
  }

  disconnect(sessionId: string, connection: PageConnection): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    session.connections.delete(connection);
    if (session.connections.size > 0) return;
    // The microphone and camera went with the page.
    session.hearing.close(new Date());
    session.video = { ...session.video, showing: false };
    // Whatever the page was playing died with it, even if it comes back after a reload.
    if (session.id === this.botSessionId) this.cutInFlight();
    // A reload reconnects within the grace period; anything longer means the page went away.
    session.goneTimer = setTimeout(() => {
      session.goneTimer = undefined;
      if (session.connections.size > 0) return;
      if (session.state === 'prejoin' || isWaitingOrIn(session.state)) this.leave(session, 'page_closed');
    }, this.pageGoneGraceMs);
  }

  act(sessionId: string, action: PageAction): void {
    const session = this.sessions.get(sessionId);
    if (!session) throw conflict('unknown session; reload the page');
    switch (action.type) {
      case 'ask':
        this.ask(session, action);
        return;
      case 'toggles':
        session.micOn = action.micOn;
        session.cameraOn = action.cameraOn;
        return;
      case 'accept-dialog':
        if (session.state !== 'admitted') throw conflict(`no dialog to answer in state ${session.state}`);
        this.setState(session, 'in_call');
        this.startMedia(session);
        return;
      case 'leave':
        if (!isWaitingOrIn(session.state)) throw conflict(`cannot leave from state ${session.state}`);
        this.leave(session, action.via);
        return;
      case 'transport':
        session.transport = action.transport;
        return;
      case 'mic-audio': {
        const bytes = Buffer.from(action.pcm, 'base64');
        const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
        session.hearing.audio(pcm.slice(), new Date(action.at));
        return;
      }
      case 'camera-frame':
        session.video = {
          showing: true,
          averageColor: action.color,
          width: action.width,
          height: action.height,
          sampledAt: action.at,
          frames: session.video.frames + 1,
        };
        return;
      case 'video-received':
        session.receivedVideo = {
          incomingVideo: action.incomingVideo,
          cameraFramesDecoded: action.cameraFrames,
          screenFramesDecoded: action.screenFrames,
        };
        return;
      case 'camera-closed':
        session.video = { ...session.video, showing: false };
        return;
      case 'mic-closed':
        session.hearing.close(new Date(action.at));
        return;
      case 'utterance-started':
        this.recordStart(session, action);
        return;
      case 'utterance-ended':
        this.recordEnd(session, action);
        return;
      case 'chat-send':
        if (session.state !== 'in_call')
          throw conflict(`cannot write in the chat from state ${session.state}`);
        this.sentChatCount += 1;
        this.postChat({
          id: `s${this.sentChatCount}`,
          sender: session.name ?? '',
          text: action.text,
          at: new Date(),
          participantId: null,
          sessionId: session.id,
        });
        return;
    }
  }

  // ---- control API ----

  admit(): void {
    const bot = this.requireBot('lobby');
    this.enterCall(bot);
  }

  deny(): void {
    const bot = this.requireBot('lobby');
    this.setState(bot, 'denied');
  }

  removeBot(): void {
    const bot = this.bot();
    if (!bot || !isInCall(bot.state))
      throw conflict(`the bot is not in the call (state ${bot?.state ?? 'none'})`);
    this.setState(bot, 'removed');
  }

  end(): void {
    if (this.status === 'ended') throw conflict('the meeting has already ended');
    this.status = 'ended';
    this.endedAt = new Date();
    this.clearTimeline();
    this.dismissEveryone();
    for (const session of this.sessions.values()) {
      if (session.state === 'prejoin' || isWaitingOrIn(session.state)) this.setState(session, 'ended');
    }
  }

  everyoneLeaves(): void {
    if (this.status === 'ended') throw conflict('the meeting has already ended');
    this.everyoneLeft = true;
    this.dismissEveryone();
  }

  /** Stops every timer; the meeting is being deleted or the server is closing. */
  dispose(): void {
    this.clearTimeline();
    for (const session of this.sessions.values()) {
      clearTimeout(session.admissionTimer);
      clearTimeout(session.goneTimer);
    }
  }

  snapshot(): MeetingSnapshot {
    const { script } = this.setup;
    return {
      id: this.id,
      platform: this.platform,
      passcode: this.passcode,
      url: this.setup.url,
      status: this.status,
      createdAt: this.createdAt.toISOString(),
      endedAt: iso(this.endedAt),
      admission: script.admission,
      audio: { mode: this.audioMode(), trackDelaySeconds: script.audio.trackDelaySeconds },
      traps: script.traps,
      speaking: script.speaking,
      load: script.load,
      access: {
        signedInOnly: script.access.signedInOnly,
        accounts: script.access.accounts.map((account) => ({
          name: account.name,
          expired: this.expiredAccounts.has(account.name),
        })),
      },
      endAt: script.endAt ?? null,
      bot: this.botSnapshot(),
      participants: this.setup.participants.map((p) => this.participantSnapshot(p)),
      utterances: this.setup.utterances.map((u) => this.utteranceSnapshot(u)),
      chat: this.chatLog.map((entry) => this.chatSnapshot(entry)),
    };
  }

  // ---- internals ----

  private ask(session: Session, action: Extract<PageAction, { type: 'ask' }>): void {
    if (this.status === 'ended') throw conflict('the meeting has ended');
    if (!canAskToJoin(session.state)) throw conflict(`cannot ask to join from state ${session.state}`);
    if (this.setup.script.access.signedInOnly && !session.account)
      throw conflict('this meeting admits only signed-in users');
    // A signed-in page joins under its account's name, whatever it typed.
    session.name = session.account ?? action.name;
    session.micOn = action.micOn;
    session.cameraOn = action.cameraOn;
    session.askedAt = new Date();
    session.leftAt = null;
    session.leaveReason = null;
    this.botSessionId = session.id;
    const { admission, refusal } = this.setup.script;
    if (refusal && (refusal.attempts === undefined || this.refusedJoins < refusal.attempts)) {
      this.refusedJoins += 1;
      session.refusal = refusal.screen;
      this.setState(session, 'blocked');
      return;
    }
    if (admission.policy === 'open') {
      this.enterCall(session);
      return;
    }
    if (admission.policy === 'blocked') {
      this.setState(session, 'blocked');
      return;
    }
    this.setState(session, 'lobby');
    if (admission.policy === 'after') {
      this.whileInLobby(session, admission.delaySeconds, () => this.enterCall(session));
    } else if (admission.policy === 'deny') {
      this.whileInLobby(session, admission.delaySeconds, () => this.setState(session, 'denied'));
    } else if (admission.timeoutSeconds !== undefined) {
      this.whileInLobby(session, admission.timeoutSeconds, () => this.setState(session, 'timed_out'));
    }
  }

  private whileInLobby(session: Session, seconds: number, then: () => void): void {
    clearTimeout(session.admissionTimer);
    session.admissionTimer = setTimeout(() => {
      session.admissionTimer = undefined;
      if (session.state === 'lobby') then();
    }, seconds * 1000);
  }

  private enterCall(session: Session): void {
    session.admittedAt = new Date();
    const { traps } = this.setup.script;
    if (traps.recordingDialog || traps.consentDialog || traps.joinAudioDialog) {
      this.setState(session, 'admitted');
      return;
    }
    this.setState(session, 'in_call');
    this.startMedia(session);
  }

  private startMedia(session: Session): void {
    session.mediaStartedAt = new Date();
    if (this.timelineStartedAt) return;
    // The script runs once per meeting, from the first time media flows to the bot.
    this.timelineStartedAt = session.mediaStartedAt;
    const events = buildTimeline(
      this.setup.participants,
      this.setup.utterances,
      this.setup.script.endAt,
      this.setup.chat ?? [],
    );
    this.timelineTimers = events.map((event) => setTimeout(() => this.fire(event), event.at * 1000));
  }

  private fire(event: TimelineEvent): void {
    if (this.status === 'ended') return;
    switch (event.kind) {
      case 'join':
        if (!this.everyoneLeft) this.setPresent(event.participantId, true);
        return;
      case 'leave':
        this.setPresent(event.participantId, false);
        return;
      case 'end':
        this.end();
        return;
      case 'speak':
        this.speak(event.utteranceId);
        return;
      case 'chat':
        this.writeScriptedChat(event.chatId);
        return;
    }
  }

  private writeScriptedChat(chatId: string): void {
    const message = this.setup.chat?.find((m) => m.id === chatId);
    if (!message || this.everyoneLeft || !this.presence.get(message.participantId)?.present) return;
    const writer = this.setup.participants.find((p) => p.id === message.participantId)!;
    this.postChat({
      id: message.id,
      sender: writer.name,
      text: message.text,
      at: new Date(),
      participantId: writer.id,
      sessionId: null,
    });
  }

  /** Everyone's page gets the message; each page sees its own messages as its own. */
  private postChat(entry: ChatEntry): void {
    this.chatLog.push(entry);
    for (const session of this.sessions.values()) {
      this.sendTo(session, { event: 'chat', data: this.chatViewFor(entry, session.id) });
    }
  }

  private chatViewFor(entry: ChatEntry, sessionId: string): PageChatMessage {
    return {
      id: entry.id,
      sender: entry.sender,
      text: entry.text,
      at: entry.at.toISOString(),
      mine: entry.sessionId === sessionId,
    };
  }

  private chatSnapshot(entry: ChatEntry): ChatMessageSnapshot {
    const fromBot = entry.sessionId !== null && entry.sessionId === this.botSessionId;
    return {
      id: entry.id,
      sender: entry.sender,
      text: entry.text,
      at: entry.at.toISOString(),
      from: fromBot ? 'bot' : entry.sessionId === null ? 'participant' : 'page',
      participantId: entry.participantId,
    };
  }

  private speak(utteranceId: string): void {
    const playback = this.playback.get(utteranceId)!;
    const utterance = this.setup.utterances.find((u) => u.id === utteranceId)!;
    const listeners = [...this.sessions.values()].filter(
      (s) => s.state === 'in_call' && s.connections.size > 0,
    );
    const bot = this.bot();
    const botListens = bot !== undefined && listeners.includes(bot);
    if (this.everyoneLeft || !this.presence.get(utterance.participantId)?.present || !botListens) {
      playback.status = 'missed';
      return;
    }
    playback.status = 'sent';
    for (const session of listeners) this.sendTo(session, { event: 'play', data: { utteranceId } });
    // A page that never starts the audio (crashed, audio blocked) must not leave it pending forever.
    const giveUpMs = (utterance.durationSeconds + UNSTARTED_GRACE_SECONDS) * 1000;
    this.timelineTimers.push(
      setTimeout(() => {
        if (playback.status === 'sent') playback.status = 'missed';
      }, giveUpMs),
    );
  }

  private recordStart(session: Session, action: Extract<PageAction, { type: 'utterance-started' }>): void {
    const playback = this.playback.get(action.utteranceId);
    if (!playback || session.id !== this.botSessionId || playback.status !== 'sent') return;
    playback.status = 'playing';
    playback.startedAt = new Date(action.at);
    playback.speechStartedAt = action.speechStartedAt ? new Date(action.speechStartedAt) : null;
    playback.slot = action.slot;
    playback.beforeTracks = action.beforeTracks;
  }

  private recordEnd(session: Session, action: Extract<PageAction, { type: 'utterance-ended' }>): void {
    const playback = this.playback.get(action.utteranceId);
    if (!playback || session.id !== this.botSessionId || playback.startedAt === null || playback.endedAt)
      return;
    playback.endedAt = new Date(action.at);
    playback.speechEndedAt = action.speechEndedAt ? new Date(action.speechEndedAt) : null;
    if (playback.status === 'playing') playback.status = 'played';
  }

  private dismissEveryone(): void {
    for (const participant of this.setup.participants) {
      if (this.presence.get(participant.id)?.present) this.setPresent(participant.id, false);
    }
    const cut: string[] = [];
    for (const [id, playback] of this.playback) {
      if (playback.status === 'scheduled') playback.status = 'missed';
      if (playback.status === 'sent' || playback.status === 'playing') {
        playback.status = 'cut';
        cut.push(id);
      }
    }
    if (cut.length > 0) this.broadcast({ event: 'stop', data: { utteranceIds: cut } });
  }

  /** The bot's page stops its audio when it leaves the call, so nothing in flight finishes normally. */
  private cutInFlight(): void {
    for (const playback of this.playback.values()) {
      if (playback.status === 'sent' || playback.status === 'playing') playback.status = 'cut';
    }
  }

  private setPresent(participantId: string, present: boolean): void {
    const presence = this.presence.get(participantId)!;
    if (presence.present === present) return;
    presence.present = present;
    if (present) presence.joinedAt = new Date();
    else presence.leftAt = new Date();
    this.broadcast({ event: 'participants', data: { present: this.presentIds() } });
  }

  private leave(session: Session, reason: LeaveReason): void {
    session.leaveReason = reason;
    session.leftAt = new Date();
    this.setState(session, 'left');
  }

  private setState(session: Session, state: BotState): void {
    if (!canTransition(session.state, state)) throw conflict(`cannot go from ${session.state} to ${state}`);
    if (session.state === 'in_call' && session.id === this.botSessionId) this.cutInFlight();
    clearTimeout(session.admissionTimer);
    session.admissionTimer = undefined;
    session.state = state;
    const now = new Date();
    session.history.push({ state, at: now });
    if ((state === 'removed' || state === 'ended') && session.leftAt === null) session.leftAt = now;
    this.sendTo(session, { event: 'state', data: { state, refusal: session.refusal } });
  }

  private requireBot(state: BotState): Session {
    const bot = this.bot();
    if (!bot || bot.state !== state) {
      throw conflict(`the bot is not in state ${state} (it is ${bot?.state ?? 'none'})`);
    }
    return bot;
  }

  private bot(): Session | undefined {
    return this.botSessionId ? this.sessions.get(this.botSessionId) : undefined;
  }

  private clearTimeline(): void {
    for (const timer of this.timelineTimers) clearTimeout(timer);
    this.timelineTimers = [];
  }

  private sendTo(session: Session, event: PageEvent): void {
    for (const connection of session.connections) connection.send(event);
  }

  private broadcast(event: PageEvent): void {
    for (const session of this.sessions.values()) this.sendTo(session, event);
  }

  private presentIds(): string[] {
    return this.setup.participants.filter((p) => this.presence.get(p.id)?.present).map((p) => p.id);
  }

  private audioMode() {
    return this.setup.script.audio.mode ?? (this.platform === 'google_meet' ? 'slots' : 'mixed');
  }

  private deviceIdOf(index: number): string {
    return `spaces/${this.setup.spaceId}/devices/${index}`;
  }

  /** The account a session cookie signs in as, or null (no cookie, unknown or expired). */
  private signedInAs(token: string | null): string | null {
    if (token === null) return null;
    const account = this.setup.script.access.accounts.find((candidate) => candidate.token === token);
    if (!account || this.expiredAccounts.has(account.name)) return null;
    return account.name;
  }

  /** The account's cookie stops signing in from the next page load on. */
  expireAccount(name: string): void {
    if (!this.setup.script.access.accounts.some((account) => account.name === name))
      throw notFound(`account ${name}`);
    this.expiredAccounts.add(name);
  }

  /** The traps as this session's page sees them: a sign-in-only meeting shows a guest its sign-in screen. */
  private trapsFor(session: Session | undefined): PageMeetingView['traps'] {
    const { access, traps } = this.setup.script;
    if (!access.signedInOnly || session?.account) return traps;
    if (this.platform === 'google_meet') return { ...traps, signInScreen: true };
    if (this.platform === 'zoom') return { ...traps, zoomSignIn: true };
    return { ...traps, signIn: traps.signIn ?? 'sign_in_to_continue' };
  }

  private pageView(session?: Session): PageMeetingView {
    const { script } = this.setup;
    return {
      id: this.id,
      platform: this.platform,
      spaceId: this.setup.spaceId,
      admission: script.admission.policy,
      audio: { mode: this.audioMode(), trackDelaySeconds: script.audio.trackDelaySeconds },
      traps: this.trapsFor(session),
      speaking: script.speaking,
      load: script.load,
      participants: this.setup.participants.map((p, index) => ({
        id: p.id,
        name: p.name,
        deviceId: this.deviceIdOf(index + 1),
      })),
      utterances: this.setup.utterances.map((u) => ({
        id: u.id,
        participantId: u.participantId,
        audioUrl: this.setup.audioUrlOf(u.id),
        durationSeconds: u.durationSeconds,
        // What the captions show (the `liveCaptions` trap); otherwise the page never gets the words.
        ...(script.traps.liveCaptions ? { text: u.text } : {}),
      })),
      // Devices 1..n are the scripted people; the bot's device number comes after them.
      selfDeviceId: this.deviceIdOf(this.setup.participants.length + 1),
    };
  }

  private botSnapshot(): BotSnapshot {
    const bot = this.bot();
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

  private participantSnapshot(participant: PlannedParticipant): ParticipantSnapshot {
    const presence = this.presence.get(participant.id)!;
    const index = this.setup.participants.indexOf(participant);
    return {
      id: participant.id,
      name: participant.name,
      voice: participant.voice,
      deviceId: this.deviceIdOf(index + 1),
      joinAt: participant.joinAt,
      leaveAt: participant.leaveAt ?? null,
      present: presence.present,
      joinedAt: iso(presence.joinedAt),
      leftAt: iso(presence.leftAt),
    };
  }

  private utteranceSnapshot(utterance: PlannedUtterance): UtteranceSnapshot {
    const playback = this.playback.get(utterance.id)!;
    const speaker = this.setup.participants.find((p) => p.id === utterance.participantId)!;
    return {
      id: utterance.id,
      participantId: utterance.participantId,
      speaker: speaker.name,
      text: utterance.text,
      clip: utterance.clip,
      at: utterance.at,
      durationSeconds: utterance.durationSeconds,
      status: playback.status,
      startedAt: iso(playback.startedAt),
      endedAt: iso(playback.endedAt),
      speechStartedAt: iso(playback.speechStartedAt),
      speechEndedAt: iso(playback.speechEndedAt),
      slot: playback.slot,
      beforeTracks: playback.beforeTracks,
    };
  }
}

function noVideo(): BotVideoSnapshot {
  return { showing: false, averageColor: null, width: null, height: null, sampledAt: null, frames: 0 };
}

function noReceivedVideo(): BotReceivedVideoSnapshot {
  return { incomingVideo: null, cameraFramesDecoded: 0, screenFramesDecoded: 0 };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
