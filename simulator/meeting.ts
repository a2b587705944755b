import {
  type BotState,
  canAskToJoin,
  canTransition,
  isInCall,
  isWaitingOrIn,
  type LeaveReason,
} from './bot-state.js';
import { conflict } from './errors.js';
import type { SimPlatform } from './ids.js';
import { MeetingAccounts } from './meeting-accounts.js';
import { MeetingChat } from './meeting-chat.js';
import { MeetingScript } from './meeting-script.js';
import type { MeetingSetup } from './meeting-setup.js';
import type { PageAction } from './page-protocol.js';
import { botSnapshotOf, openSession, type PageConnection, type PageSession, sendTo } from './page-session.js';
import { audioModeOf, pageViewOf } from './page-view.js';
import { iso, type MeetingSnapshot } from './snapshot.js';

const DEFAULT_PAGE_GONE_GRACE_MS = 3000;

/**
 * One scripted meeting: the bot's sessions and their states, the admission policy, and the
 * script of people joining, speaking and leaving that starts when the bot's media starts.
 */
export class Meeting {
  readonly id: string;
  readonly platform: SimPlatform;
  readonly passcode: string | null;
  readonly createdAt = new Date();
  private status: 'open' | 'ended' = 'open';
  private endedAt: Date | null = null;
  private readonly sessions = new Map<string, PageSession>();
  private botSessionId: string | null = null;
  /** Join requests the meeting's `refusal` has turned away so far. */
  private refusedJoins = 0;
  private readonly pageGoneGraceMs: number;
  private readonly accounts: MeetingAccounts;
  private readonly chat: MeetingChat;
  private readonly script: MeetingScript;

  constructor(private readonly setup: MeetingSetup) {
    this.id = setup.id;
    this.platform = setup.platform;
    this.passcode = setup.passcode;
    this.pageGoneGraceMs = setup.pageGoneGraceMs ?? DEFAULT_PAGE_GONE_GRACE_MS;
    this.accounts = new MeetingAccounts(setup.script.access.accounts);
    this.chat = new MeetingChat(() => this.sessions.values());
    this.script = new MeetingScript(
      setup,
      {
        isOpen: () => this.isOpen,
        sessions: () => this.sessions.values(),
        bot: () => this.bot(),
        end: () => this.end(),
      },
      this.chat,
      this.createdAt,
    );
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
      session = openSession(sessionId, this.setup.recognize);
      this.sessions.set(sessionId, session);
      if (!this.botSessionId || this.bot()?.askedAt === null) this.botSessionId = sessionId;
    }
    clearTimeout(session.goneTimer);
    session.goneTimer = undefined;
    session.connections.add(connection);
    session.account = this.accounts.signedInAs(accountToken);
    connection.send({
      event: 'hello',
      data: {
        found: true,
        meeting: pageViewOf(this.setup, session),
        state: session.state,
        refusal: session.refusal,
        name: session.account ?? session.name,
        signedInAs: session.account,
        chat: this.chat.viewFor(sessionId),
      },
    });
    connection.send({ event: 'participants', data: { present: this.script.presentIds() } });
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
    if (session.id === this.botSessionId) this.script.cutInFlight();
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
        // Only what the bot's page played counts.
        if (session.id === this.botSessionId) this.script.recordStart(action);
        return;
      case 'utterance-ended':
        if (session.id === this.botSessionId) this.script.recordEnd(action);
        return;
      case 'chat-send':
        if (session.state !== 'in_call')
          throw conflict(`cannot write in the chat from state ${session.state}`);
        this.chat.post({
          id: this.chat.nextPageMessageId(),
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
    this.script.stop();
    this.script.dismissEveryone();
    for (const session of this.sessions.values()) {
      if (session.state === 'prejoin' || isWaitingOrIn(session.state)) this.setState(session, 'ended');
    }
  }

  everyoneLeaves(): void {
    if (this.status === 'ended') throw conflict('the meeting has already ended');
    this.script.everyoneLeaves();
  }

  /** The account's cookie stops signing in from the next page load on. */
  expireAccount(name: string): void {
    this.accounts.expire(name);
  }

  /** Stops every timer; the meeting is being deleted or the server is closing. */
  dispose(): void {
    this.script.stop();
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
      audio: { mode: audioModeOf(this.setup), trackDelaySeconds: script.audio.trackDelaySeconds },
      traps: script.traps,
      speaking: script.speaking,
      load: script.load,
      access: { signedInOnly: script.access.signedInOnly, accounts: this.accounts.snapshot() },
      endAt: script.endAt ?? null,
      bot: botSnapshotOf(this.bot()),
      participants: this.script.participantSnapshots(),
      utterances: this.script.utteranceSnapshots(),
      chat: this.chat.snapshot(this.botSessionId),
    };
  }

  // ---- joining ----

  private ask(session: PageSession, action: Extract<PageAction, { type: 'ask' }>): void {
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

  private whileInLobby(session: PageSession, seconds: number, then: () => void): void {
    clearTimeout(session.admissionTimer);
    session.admissionTimer = setTimeout(() => {
      session.admissionTimer = undefined;
      if (session.state === 'lobby') then();
    }, seconds * 1000);
  }

  private enterCall(session: PageSession): void {
    session.admittedAt = new Date();
    const { traps } = this.setup.script;
    if (traps.recordingDialog || traps.consentDialog || traps.joinAudioDialog) {
      this.setState(session, 'admitted');
      return;
    }
    this.setState(session, 'in_call');
    this.startMedia(session);
  }

  private startMedia(session: PageSession): void {
    session.mediaStartedAt = new Date();
    this.script.start(session.mediaStartedAt);
  }

  // ---- states ----

  private leave(session: PageSession, reason: LeaveReason): void {
    session.leaveReason = reason;
    session.leftAt = new Date();
    this.setState(session, 'left');
  }

  private setState(session: PageSession, state: BotState): void {
    if (!canTransition(session.state, state)) throw conflict(`cannot go from ${session.state} to ${state}`);
    if (session.state === 'in_call' && session.id === this.botSessionId) this.script.cutInFlight();
    clearTimeout(session.admissionTimer);
    session.admissionTimer = undefined;
    session.state = state;
    const now = new Date();
    session.history.push({ state, at: now });
    if ((state === 'removed' || state === 'ended') && session.leftAt === null) session.leftAt = now;
    sendTo(session, { event: 'state', data: { state, refusal: session.refusal } });
  }

  private requireBot(state: BotState): PageSession {
    const bot = this.bot();
    if (!bot || bot.state !== state) {
      throw conflict(`the bot is not in state ${state} (it is ${bot?.state ?? 'none'})`);
    }
    return bot;
  }

  private bot(): PageSession | undefined {
    return this.botSessionId ? this.sessions.get(this.botSessionId) : undefined;
  }
}
