import type { BotConfig, TranscriptionConfig } from '../shared/contract/bot-config.js';
import type { BotCommand, ChatSendCommand, SpeakCommand } from '../shared/contract/commands.js';
import type { StorageState } from '../shared/contract/storage-state.js';
import type { Logger } from '../shared/infra/logger.js';
import { MeetingChat } from './actions/chat.js';
import { ScreenShare } from './actions/screen.js';
import { lockedToggles, PageInputLock } from './actions/page-input-lock.js';
import { Speaker } from './actions/speaker.js';
import { AdmissionTracker } from './admission.js';
import type { AudioOut } from './audio/audio-out.js';
import { CAPTURE_SAMPLE_RATE } from './audio/capture-page-script.js';
import { isSpeech } from './audio-utils/pcm.js';
import type { EndSignal, Outcome } from './end-signal.js';
import type { EngineCallbacks, EngineSettings, TranscriptionEngine } from './engines/engine.js';
import { runInCallStep } from './in-call-step.js';
import { LeaveTimers } from './leave-timers.js';
import { type MeetingPage, type MeetingPageFactory, openChromiumMeetingPage } from './meeting-page.js';
import { createNavigationPolicy } from './navigation-policy.js';
import type { ChatSink, EventSink, ParticipantSink } from './outbox.js';
import { ParticipantReporter } from './participants/reporter.js';
import type { Observation, PlatformDriver, Screen } from './platforms/driver.js';
import { firstLine } from './platforms/page-actions.js';
import { MeetingRecorder, type RecordingChunk } from './recording/meeting-recorder.js';
import { SpeakerAttribution } from './speakers/attribution.js';
import { TranscriptPublisher } from './transcript-publisher.js';
import { LagMonitor, type LagThresholds, lagParts } from './transcription-lag.js';
import { type CaptureLossReport, CaptureLossWatch } from './audio/capture-loss.js';
import { terminalOutcome } from './screen-outcome.js';
import { unreachablePageDetail } from './unreachable-page.js';
import { VideoMeasures } from './video/video-measures.js';
import { createSpeechSynthesizer } from './voices/index.js';
import type { SpeechSynthesizer } from './voices/voice.js';

export type EngineFactory = (
  config: TranscriptionConfig,
  settings: EngineSettings,
  callbacks: EngineCallbacks,
  log: Logger,
) => TranscriptionEngine;

export interface SessionDeps {
  config: BotConfig;
  outbox: EventSink;
  log: Logger;
  createEngine: EngineFactory;
  /** Ended by commands, SIGTERM, refused navigations and engine failures. */
  end: EndSignal;
  /** Chromium by default; tests pass a scripted page. */
  openPage?: MeetingPageFactory;
  /** How often the page is looked at (ms) before joining, in the lobby and in the call. */
  pacing?: Partial<Pacing>;
  /** When falling behind is reported (DEFAULT_LAG_THRESHOLDS otherwise). */
  lagThresholds?: LagThresholds;
  /** Where the chat messages the bot reads go; without it the bot neither reads nor writes the chat. */
  chatSink?: ChatSink;
  /** Where participants joining, leaving and speaking go (none: not reported). */
  participantSink?: ParticipantSink;
  /** The config's speech engine by default; tests pass their own. */
  synthesizer?: SpeechSynthesizer;
  /** A signed-in bot's browser session (bot/signed-in.ts); absent: an anonymous guest. */
  storageState?: StorageState | undefined;
  /** Where each captured chunk goes for the audio WebSocket (bot/audio/audio-out.ts); absent: nowhere. */
  audioOut?: AudioOut;
}

export interface Pacing {
  prejoinMs: number;
  lobbyMs: number;
  callMs: number;
  /**
   * How long the pre-join form may go without a step not taken before (the name, a switch, the join
   * button) before the page is judged unusable: a slow page that keeps moving is given its time.
   */
  prejoinStuckMs: number;
  /** How long the pre-join form may take in all, however it moves. */
  prejoinLimitMs: number;
}

const DEFAULT_PACING: Pacing = {
  prejoinMs: 600,
  lobbyMs: 500,
  callMs: 1000,
  prejoinStuckMs: 90_000,
  prejoinLimitMs: 180_000,
};

const LEAVE_LIMIT_MS = 10_000;
/**
 * The command stream is read from its start, so a relaunched bot sees the speech its predecessor
 * was asked for: a request issued this long before this bot started is old news and not spoken.
 */
const STALE_SPEECH_MS = 5000;
/**
 * After this long waiting in the lobby a bot counts as settled in (lagState) until it is admitted:
 * a meeting that admits at once (or is open) lets it finish settling in the call first.
 */
const LOBBY_SETTLED_MS = 10_000;
const FLUSH_LIMIT_MS = 20_000;

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

/**
 * A refusal seen before the bot asked to join: where the platform words a refused link like a
 * refused bot (PlatformDriver.refusesBadLinksAsBlocked), it is the link, which no retry mends.
 */
function refusalBeforeAsking(driver: PlatformDriver, outcome: Outcome): Outcome {
  if (!driver.refusesBadLinksAsBlocked || outcome.reason !== 'blocked_by_platform') return outcome;
  return {
    status: 'failed',
    reason: 'meeting_not_found',
    detail: `the platform refused the meeting link before its join form${outcome.detail ? ` (${outcome.detail})` : ''}: a wrong passcode or meeting id`,
  };
}

async function withLimit<T>(work: Promise<T>, ms: number, what: string, log: Logger): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      log.warn({ ms }, `${what} took too long; going on`);
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One bot in one meeting, from launching the browser to leaving: publishes every lifecycle step
 * but the last, which it returns (the caller publishes it after cleaning up).
 */
export class BotSession {
  private readonly config: BotConfig;
  private readonly log: Logger;
  private readonly speakers = new SpeakerAttribution();
  private settings: EngineSettings;
  private botName: string;
  private engine: TranscriptionEngine | null = null;
  private page: MeetingPage | null = null;
  /** The in-call side of the video measures (bot/video/), once the page is open. */
  private video: VideoMeasures | null = null;
  private readonly pacing: Pacing;
  private driver: PlatformDriver | null = null;
  private publisher: TranscriptPublisher;
  private timers: LeaveTimers | null = null;
  private inLobbyOrCall = false;
  /** Settled in (lagState): waiting in the lobby a while, or in the call with its video measures done. */
  private lobbySince: number | null = null;
  private settledInCall = false;
  private captureStarted = false;
  private recorder: MeetingRecorder | null = null;
  private readonly lag: LagMonitor;
  private readonly captureLoss = new CaptureLossWatch();
  private chat: MeetingChat | null = null;
  /** Participant events, from admission to leaving. */
  private participants: ParticipantReporter | null = null;
  /** Chat commands that came before the driver existed. */
  private readonly earlyChat: ChatSendCommand[] = [];
  private readonly startedAt = Date.now();
  private speaker: Speaker | null = null;
  /** Speak requests that came before the page was open. */
  private readonly pendingSpeech: SpeakCommand[] = [];
  private screen: ScreenShare | null = null;
  /** The last screen request that came before the page was open. */
  private pendingScreen: (BotCommand & { type: 'screen.show' }) | null = null;
  /** The call page's mouse and keyboard, one user at a time (page-input-lock.ts). */
  private readonly pageInput = new PageInputLock();

  constructor(private readonly deps: SessionDeps) {
    this.config = deps.config;
    this.log = deps.log;
    this.settings = { language: deps.config.language, task: deps.config.task };
    this.botName = deps.config.botName;
    this.pacing = { ...DEFAULT_PACING, ...deps.pacing };
    this.lag = new LagMonitor(deps.lagThresholds);
    this.publisher = new TranscriptPublisher(
      deps.outbox,
      this.speakers,
      {
        wallAt: (seconds) => this.page?.timeline.wallAt(seconds) ?? null,
        startWall: () => this.page?.timeline.startWall() ?? null,
      },
      deps.config.language,
      deps.log,
      deps.config.transcriptOrigin ? Date.parse(deps.config.transcriptOrigin) : null,
    );
  }

  /** Leave, reconfigure, speak and speak.stop, from the command stream. */
  handleCommand(command: BotCommand): void {
    if (command.type === 'leave') {
      this.deps.end.end({ status: 'completed', reason: 'stopped', detail: 'leave command' });
      return;
    }
    if (command.type === 'chat.send') {
      if (this.chat) this.chat.enqueue(command);
      else this.earlyChat.push(command);
      return;
    }
    if (command.type === 'speak' || command.type === 'speak.stop') {
      this.handleSpeech(command);
      return;
    }
    if (command.type === 'screen.show' || command.type === 'screen.stop') {
      this.handleScreen(command);
      return;
    }
    const update: Partial<EngineSettings> = {};
    if (command.language !== undefined) update.language = command.language;
    if (command.task !== undefined) update.task = command.task;
    if (Object.keys(update).length > 0) {
      this.settings = { ...this.settings, ...update };
      this.engine?.reconfigure(update);
      if (update.language !== undefined) this.publisher.setLanguage(update.language);
    }
    if (command.botName !== undefined) {
      // Neither platform lets a guest rename itself once it asked to join; the name is used on the
      // next join (e.g. after a mid-join reload) and kept for the record.
      this.botName = command.botName;
    }
    this.log.info({ settings: this.settings, botName: this.botName }, 'reconfigured');
  }

  private handleSpeech(command: BotCommand & { type: 'speak' | 'speak.stop' }): void {
    if (Date.parse(command.issuedAt) < this.startedAt - STALE_SPEECH_MS) {
      this.log.info(
        { command: command.type, issuedAt: command.issuedAt },
        'ignoring speech asked of an earlier bot',
      );
      return;
    }
    if (command.type === 'speak.stop') {
      this.pendingSpeech.length = 0;
      void this.speaker?.stop();
      return;
    }
    if (this.speaker) this.speaker.enqueue(command);
    else this.pendingSpeech.push(command);
  }

  private handleScreen(command: BotCommand & { type: 'screen.show' | 'screen.stop' }): void {
    if (Date.parse(command.issuedAt) < this.startedAt - STALE_SPEECH_MS) {
      this.log.info({ command: command.type }, 'ignoring an image asked of an earlier bot');
      return;
    }
    if (!this.screen) {
      this.pendingScreen = command.type === 'screen.show' ? command : null;
      return;
    }
    if (command.type === 'screen.show') this.screen.show(Buffer.from(command.image.base64, 'base64'));
    else this.screen.stop();
  }

  /** Whether the bot is speaking (or about to): its microphone is on on purpose. */
  get speaking(): boolean {
    return this.speaker?.busy ?? false;
  }

  async run(): Promise<Outcome> {
    try {
      return await this.runSteps();
    } finally {
      await this.cleanUp();
    }
  }

  private async runSteps(): Promise<Outcome> {
    const { end } = this.deps;
    const engineStarted = await this.startEngine();
    if (engineStarted) return engineStarted;

    const verdict = createNavigationPolicy(this.config.platform, this.config.extraAllowedOrigins).verdict(
      this.config.meetingUrl,
    );
    if (verdict !== 'allow') {
      return { status: 'failed', reason: verdict, detail: 'meeting URL is not on an allowed host' };
    }
    const page = await (this.deps.openPage ?? openChromiumMeetingPage)(
      this.config,
      {
        onSpeaking: (change) => {
          this.speakers.record(change);
          this.participants?.speaking(change, this.page?.timeline.wallAt(change.at) ?? Date.now());
        },
        onFatal: (outcome) => end.end(outcome),
      },
      this.log,
      { storageState: this.deps.storageState },
    );
    this.page = page;
    this.video = new VideoMeasures(
      page.videoMeasures,
      () => page.videoFramesDecoded(),
      this.log.child({ component: 'video' }),
    );
    this.driver = page.driver;
    this.chat = this.createChat(page.driver);
    this.speaker = new Speaker(
      page.media,
      lockedToggles(page.driver, this.pageInput),
      this.deps.synthesizer ?? createSpeechSynthesizer(this.config.speech),
      this.log.child({ component: 'speaker' }),
    );
    for (const command of this.pendingSpeech.splice(0)) this.speaker.enqueue(command);
    this.screen = new ScreenShare(
      page.media,
      lockedToggles(page.driver, this.pageInput),
      this.log.child({ component: 'screen' }),
    );
    if (this.pendingScreen) this.handleScreen(this.pendingScreen);
    this.pendingScreen = null;
    try {
      await this.driver.open(this.config.meetingUrl);
    } catch (error) {
      if (end.outcome) return end.outcome;
      const unreachable = unreachablePageDetail(error);
      if (unreachable) return { status: 'failed', reason: 'meeting_unreachable', detail: unreachable };
      throw error;
    }
    await this.deps.outbox.event({ status: 'joining' });

    const asked = await this.askToJoin(this.driver);
    if (asked) return asked;
    this.inLobbyOrCall = true;
    this.lobbySince = Date.now();
    await this.deps.outbox.event({ status: 'awaiting_admission' });

    const admitted = await this.awaitAdmission(this.driver);
    this.lobbySince = null;
    if (admitted) return admitted;
    await this.deps.outbox.event({ status: 'active' });
    return await this.stayInCall(this.driver);
  }

  private createParticipantReporter(): ParticipantReporter | null {
    const { participantSink } = this.deps;
    if (!participantSink) return null;
    return new ParticipantReporter({
      publish: (change) => participantSink.participant(change),
      transcriptSeconds: (wall) => this.publisher.transcriptSeconds(wall),
      botName: () => this.botName,
      log: this.log.child({ component: 'participants' }),
    });
  }

  private createChat(driver: PlatformDriver): MeetingChat | null {
    const { chatSink } = this.deps;
    if (!driver.chat || !chatSink) return null;
    const chat = new MeetingChat({
      chat: driver.chat,
      publish: (message) => chatSink.chat(message),
      botName: () => this.botName,
      transcriptSeconds: (wall) => this.publisher.transcriptSeconds(wall),
      log: this.log.child({ component: 'chat' }),
    });
    for (const command of this.earlyChat.splice(0)) chat.enqueue(command);
    return chat;
  }

  private async startEngine(): Promise<Outcome | null> {
    try {
      this.engine = this.deps.createEngine(
        this.config.transcription,
        this.settings,
        {
          onSegment: (segment) => {
            if (segment.text.trim() !== '') this.timers?.observeSpeech(Date.now());
            this.publisher.publish(segment);
          },
          onFatalError: (error) =>
            this.deps.end.end({ status: 'failed', reason: 'engine_error', detail: error.message }),
          onAudioDropped: (start, end) => this.reportDropped(start, end),
        },
        this.log,
      );
      await this.engine.start();
      return null;
    } catch (error) {
      this.engine = null;
      this.log.error({ err: error }, 'transcription engine could not start');
      return { status: 'failed', reason: 'engine_error', detail: (error as Error).message };
    }
  }

  /** Fills the pre-join form and presses a join button until the page shows we asked (or can't). */
  private async askToJoin(driver: PlatformDriver): Promise<Outcome | null> {
    const { end } = this.deps;
    const { prejoinStuckMs, prejoinLimitMs } = this.pacing;
    const startedAt = Date.now();
    let movedAt = startedAt;
    // A step repeated (a field filled again after a reload, a join press the page ignored) is no move.
    const stepsTaken = new Set<string>();
    let pressedJoin = false;
    const interruptions = new Set<string>();
    let lastScreen: Screen['kind'] | null = null;
    while (Date.now() < Math.min(movedAt + prejoinStuckMs, startedAt + prejoinLimitMs)) {
      if (end.outcome) return end.outcome;
      try {
        const { screen } = await driver.observe();
        lastScreen = screen.kind;
        const terminal = terminalOutcome(screen);
        if (terminal) return pressedJoin ? terminal : refusalBeforeAsking(driver, terminal);
        // Only after pressing a join button: a form whose Join is still disabled can look like a lobby.
        if (
          pressedJoin &&
          (screen.kind === 'lobby' || screen.kind === 'in_call' || screen.kind === 'dialog')
        ) {
          this.log.info({ screen: screen.kind }, 'asked to join');
          return null;
        }
        const step = await driver.prepareStep(this.botName);
        if (step) {
          this.log.info({ step }, 'pre-join');
          if (step.startsWith('pressed')) pressedJoin = true;
          if (!stepsTaken.has(step)) movedAt = Date.now();
          stepsTaken.add(step);
        }
      } catch (error) {
        // A reload or navigation mid-step destroys the page's context; look again. Each new kind
        // of interruption is said once: a bot that ends `blocked` has only its log to say why.
        const kind = firstLine((error as Error).message);
        this.log[interruptions.has(kind) ? 'debug' : 'info']({ err: error }, 'pre-join step interrupted');
        interruptions.add(kind);
      }
      await end.sleep(this.pacing.prejoinMs);
    }
    this.log.info(
      {
        limit: Date.now() >= startedAt + prejoinLimitMs ? 'in all' : 'without a new step',
        lastScreen,
        steps: [...stepsTaken],
        pressedJoin,
      },
      'gave up on the pre-join form',
    );
    return { status: 'failed', reason: 'blocked', detail: 'the join form never led to a join request' };
  }

  /** Waits in the lobby; answers dialogs; re-asks after a reload; gives up at the timeout. */
  private async awaitAdmission(driver: PlatformDriver): Promise<Outcome | null> {
    const { end } = this.deps;
    const tracker = new AdmissionTracker();
    const deadline = Date.now() + this.config.automaticLeave.admissionTimeoutSeconds * 1000;
    let last: Screen['kind'] | null = null;
    while (!end.outcome) {
      if (Date.now() >= deadline) {
        await this.leave(driver);
        return { status: 'failed', reason: 'admission_timeout', detail: 'not admitted in time' };
      }
      try {
        const { screen } = await driver.observe();
        if (screen.kind !== last) this.log.info({ screen: screen.kind }, 'waiting for admission');
        last = screen.kind;
        const terminal = terminalOutcome(screen);
        if (terminal) return terminal;
        // The first sign of admission starts the capture, so the first words aren't lost to the
        // confirming look; lobby silence before a false sign costs nothing.
        if (screen.kind === 'in_call' || screen.kind === 'dialog') await this.startCapture();
        if (tracker.observe(screen)) return null;
        if (screen.kind === 'dialog') {
          const answer = await driver.answerDialog();
          if (answer) this.log.info({ answer }, 'answered a dialog');
        } else if (screen.kind === 'prejoin') {
          const step = await driver.prepareStep(this.botName);
          if (step) this.log.info({ step }, 'joining again');
        }
      } catch (error) {
        this.log.debug({ err: error }, 'lobby observation interrupted');
      }
      await end.sleep(this.pacing.lobbyMs);
    }
    await this.leave(driver);
    return end.outcome;
  }

  private async stayInCall(driver: PlatformDriver): Promise<Outcome> {
    const { end } = this.deps;
    const admittedAt = Date.now();
    const timers = new LeaveTimers(this.config.automaticLeave, admittedAt);
    this.timers = timers;
    await this.pageInput.run(() => driver.ensureMuted()).catch(() => {});
    await this.startCapture();
    this.speaker?.admitted();
    this.screen?.admitted();
    this.participants = this.createParticipantReporter();
    let checks = 0;
    while (!end.outcome) {
      try {
        const observation: Observation = await this.pageInput.run(() => driver.observe());
        const terminal = terminalOutcome(observation.screen);
        if (terminal) {
          this.inLobbyOrCall = false;
          this.participants?.finish(Date.now());
          return terminal;
        }
        if (observation.screen.kind === 'dialog') await this.pageInput.run(() => driver.answerDialog());
        timers.observeOthers(observation.others, Date.now());
        this.participants?.look(observation.people ?? null, Date.now());
        const chat = this.chat;
        if (chat) await this.pageInput.run(() => chat.tick());
        // Others' cameras off through the platform's setting, under the page-input lock (its menus and
        // the toggles' clicks must not interleave); after the look above so a dialog is answered first.
        // It gives way to a switch or a chat message asked for meanwhile and is tried again later.
        if (this.video?.pending) {
          const video = this.video;
          await this.pageInput.run(() =>
            runInCallStep(
              { end, driver, lookMs: this.pacing.callMs, log: this.log },
              (abandoned) => video.turnOffIncomingVideo(driver, abandoned),
              () => this.pageInput.waiting > 0 || (this.chat?.unsent() ?? 0) > 0,
            ),
          );
        }
        if (!this.video?.pending) this.settledInCall = true;
        await this.video?.logDecoded();
        // Meet may switch the microphone back on around admission.
        // Under the page-input lock, deciding there: a request that came meanwhile is not undone.
        if (checks < 5) {
          await this.pageInput.run(async () => {
            if (!this.speaking && !this.screen?.busy) await driver.ensureMuted();
          });
        }
      } catch (error) {
        this.log.debug({ err: error }, 'call observation interrupted');
      }
      checks += 1;
      const due = timers.due(Date.now());
      if (due) {
        this.log.info({ reason: due }, 'leaving on my own');
        end.end({ status: 'completed', reason: due });
        break;
      }
      if ((this.page?.silenceOfDelivery() ?? 0) > 5000) this.log.warn('the page stopped delivering audio');
      this.checkLag();
      await end.sleep(this.pacing.callMs);
    }
    this.participants?.finish(Date.now());
    this.participants = null;
    const unsent = this.chat?.unsent() ?? 0;
    if (unsent > 0) this.log.warn({ unsent }, 'left with chat messages not sent');
    await this.leave(driver);
    return end.outcome ?? { status: 'completed', reason: 'stopped' };
  }

  /**
   * How far the transcription is behind what the page hears (0 before audio), whether that is
   * reported, and whether the bot is still settling in: from its start until its video measures are
   * done in the call (its busiest seconds: the browser, the page, then every camera until the
   * setting holds), so its worker starts no other bot meanwhile (worker/bot-fleet.ts). A bot that
   * has waited LOBBY_SETTLED_MS in the lobby counts as settled there (nobody is letting it in yet),
   * and settles in again once admitted.
   */
  lagState(now = Date.now()): { lagSeconds: number; lagging: boolean; settling: boolean } {
    const settledInLobby = this.lobbySince !== null && now - this.lobbySince >= LOBBY_SETTLED_MS;
    return {
      lagSeconds: round(this.lag.lagSeconds),
      lagging: this.lag.isLagging,
      settling: !(settledInLobby || this.settledInCall),
    };
  }

  private checkLag(): void {
    this.engine?.settleDroppedAudio?.();
    this.checkCaptureLoss();
    const parts = lagParts({
      heardUntil: this.page?.timeline.endWall() ?? null,
      engineBacklogSeconds: this.engine?.backlogSeconds?.() ?? 0,
      now: Date.now(),
    });
    const lagSeconds = parts.undeliveredSeconds + parts.engineBacklogSeconds;
    const transition = this.lag.observe(lagSeconds);
    if (transition) void this.deps.outbox.health({ kind: transition.kind, lagSeconds: round(lagSeconds) });
    if (transition?.kind === 'lagging') {
      // Which part is behind: the page handing audio over (a starved browser) or the recognizer.
      this.log.warn(
        {
          lagSeconds: round(lagSeconds),
          undeliveredSeconds: round(parts.undeliveredSeconds),
          engineBacklogSeconds: round(parts.engineBacklogSeconds),
        },
        'transcription is falling behind the meeting',
      );
    } else if (transition?.kind === 'caught_up') {
      this.log.info(
        { lagSeconds: round(lagSeconds), worstSeconds: round(this.lag.worstSeconds) },
        'transcription caught up',
      );
    }
  }

  /** Audio the page's capture never heard (its clock skipped it): said, as the engine's drops are. */
  private checkCaptureLoss(): void {
    const timeline = this.page?.timeline;
    if (!timeline || timeline.startWall() === null) return;
    const loss = this.captureLoss.observe(timeline.missingSeconds(), Date.now());
    if (loss) this.reportCaptureLoss(loss);
  }

  /** The capture is over: a loss stretch still open is said too, up to the last sample heard. */
  private finishCaptureLoss(): void {
    const timeline = this.page?.timeline;
    const lastHeard = timeline?.endWall();
    if (!timeline || lastHeard == null) return;
    const loss = this.captureLoss.finish(timeline.missingSeconds(), lastHeard);
    if (loss) this.reportCaptureLoss(loss);
  }

  private reportCaptureLoss(loss: CaptureLossReport): void {
    const bounds = {
      droppedFrom: new Date(loss.from).toISOString(),
      droppedTo: new Date(loss.to).toISOString(),
    };
    const lagSeconds = round(this.lag.lagSeconds);
    const droppedSeconds = round(loss.lostSeconds);
    void this.deps.outbox.health({
      kind: 'audio_dropped',
      lagSeconds,
      ...bounds,
      droppedBy: 'capture',
      droppedSeconds,
    });
    this.log.warn(
      { droppedSeconds, ...bounds, lagSeconds },
      "the audio capture lost part of the meeting's audio (the browser is short of CPU)",
    );
  }

  private reportDropped(start: number, end: number): void {
    const from = this.page?.timeline.wallAt(start);
    const to = this.page?.timeline.wallAt(end);
    const bounds =
      from != null && to != null
        ? { droppedFrom: new Date(from).toISOString(), droppedTo: new Date(to).toISOString() }
        : {};
    const lagSeconds = round(this.lag.lagSeconds);
    void this.deps.outbox.health({ kind: 'audio_dropped', lagSeconds, ...bounds, droppedBy: 'engine' });
    this.log.warn(
      { droppedSeconds: round(end - start), ...bounds, lagSeconds },
      'the engine fell too far behind and dropped audio unheard',
    );
  }

  private async startCapture(): Promise<void> {
    if (this.captureStarted || !this.page) return;
    this.captureStarted = true;
    const page = this.page;
    if (this.config.recording.enabled) {
      this.recorder = new MeetingRecorder({
        sampleRate: CAPTURE_SAMPLE_RATE,
        timeline: page.timeline,
        onChunk: (chunk) => this.sendRecordingChunk(chunk),
        log: this.log.child({ component: 'recorder' }),
      });
    }
    await page.startCapture((samples) => {
      this.engine?.write(samples);
      this.recorder?.write(samples);
      if (isSpeech(samples)) this.timers?.observeSpeech(Date.now());
      this.publishAudio(page, samples);
    });
  }

  /**
   * The chunk just captured, for the audio WebSocket: its place on the transcript's time line, its
   * wall-clock times and who the speaker attribution names over it so far.
   */
  private publishAudio(page: MeetingPage, samples: Int16Array): void {
    const out = this.deps.audioOut;
    if (!out) return;
    const capturedAtMs = Date.now();
    const chunk = page.timeline.lastChunk();
    const seconds = samples.length / CAPTURE_SAMPLE_RATE;
    const start = chunk?.startSeconds ?? 0;
    const end = start + seconds;
    const startWallMs = chunk?.startWall ?? capturedAtMs - seconds * 1000;
    const startSeconds = this.publisher.transcriptSeconds(startWallMs);
    out.publish(
      {
        start: startSeconds,
        end: Math.round((startSeconds + seconds) * 1000) / 1000,
        startWallMs: Math.round(startWallMs),
        capturedAtMs,
        speaker: this.speakers.attribute(start, end),
      },
      samples,
    );
  }

  private sendRecordingChunk(chunk: RecordingChunk): void {
    void this.deps.outbox.recordingChunk({
      seq: chunk.seq,
      data: chunk.bytes.toString('base64'),
      endSeconds: chunk.endSeconds,
      startSeconds: this.publisher.captureStartSeconds(),
      final: chunk.final,
      ...(chunk.error !== undefined && { error: chunk.error }),
    });
  }

  private async leave(driver: PlatformDriver): Promise<void> {
    if (!this.inLobbyOrCall) return;
    this.inLobbyOrCall = false;
    await this.page?.media.stop().catch(() => {});
    await withLimit(driver.leave(), LEAVE_LIMIT_MS, 'leaving the call', this.log).catch((error: unknown) =>
      this.log.warn({ err: error }, 'leaving through the page failed'),
    );
  }

  private async cleanUp(): Promise<void> {
    this.finishCaptureLoss();
    if (this.engine) {
      const engine = this.engine;
      await withLimit(engine.flush(), FLUSH_LIMIT_MS, 'flushing the engine', this.log).catch(
        (error: unknown) => this.log.warn({ err: error }, 'flushing the engine failed'),
      );
      await engine
        .close()
        .catch((error: unknown) => this.log.warn({ err: error }, 'closing the engine failed'));
    }
    await this.page?.close();
    if (this.recorder) {
      await withLimit(this.recorder.stop(), FLUSH_LIMIT_MS, 'finishing the recording', this.log).catch(
        (error: unknown) => this.log.warn({ err: error }, 'finishing the recording failed'),
      );
    }
    await this.deps.outbox.drain();
    this.log.info({ segments: this.publisher.count() }, 'session cleaned up');
  }
}
