import type { BotConfig } from '../shared/contract/bot-config.js';
import type { BotCommand } from '../shared/contract/commands.js';
import type { StorageState } from '../shared/contract/storage-state.js';
import type { Logger } from '../shared/infra/logger.js';
import type { AudioOut } from './audio/audio-out.js';
import type { EndSignal, Outcome } from './end-signal.js';
import { type MeetingPage, type MeetingPageFactory, openChromiumMeetingPage } from './meeting-page.js';
import { createNavigationPolicy } from './navigation-policy.js';
import type { ChatSink, EventSink, ParticipantSink } from './outbox.js';
import { askToJoin } from './session/ask-to-join.js';
import { awaitAdmission } from './session/await-admission.js';
import { CallExit } from './session/call-exit.js';
import { CapturedAudio } from './session/captured-audio.js';
import { CommandHandler } from './session/command-handler.js';
import { InCall } from './session/in-call.js';
import { LagReporting } from './session/lag-reporting.js';
import { MeetingActions } from './session/meeting-actions.js';
import { DEFAULT_PACING, type Pacing } from './session/pacing.js';
import { type EngineFactory, Recognizer } from './session/recognizer.js';
import { TranscriptPublisher } from './session/transcript-publisher.js';
import type { LagThresholds } from './session/transcription-lag.js';
import { unreachablePageDetail } from './session/unreachable-page.js';
import { SpeakerAttribution } from './speakers/attribution.js';
import { VideoMeasures } from './video/video-measures.js';
import type { SpeechSynthesizer } from './voices/voice.js';

export type { Pacing } from './session/pacing.js';
export type { EngineFactory } from './session/recognizer.js';

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

/**
 * After this long waiting in the lobby a bot counts as settled in (lagState) until it is admitted:
 * a meeting that admits at once (or is open) lets it finish settling in the call first.
 */
const LOBBY_SETTLED_MS = 10_000;

/**
 * One bot in one meeting, from launching the browser to leaving: publishes every lifecycle step
 * but the last, which it returns (the caller publishes it after cleaning up). Each step is in
 * session/: taking commands, joining, the lobby, the call, the lag, the captured audio, leaving.
 */
export class BotSession {
  private readonly pacing: Pacing;
  private readonly speakers = new SpeakerAttribution();
  private readonly publisher: TranscriptPublisher;
  private readonly actions: MeetingActions;
  private readonly commands: CommandHandler;
  private readonly lag: LagReporting;
  private readonly audio: CapturedAudio;
  private readonly exit: CallExit;
  private readonly recognizer: Recognizer;
  private page: MeetingPage | null = null;
  /** The in-call side of the video measures (bot/video/), once the page is open. */
  private video: VideoMeasures | null = null;
  /** Waiting in the lobby since (lagState). */
  private lobbySince: number | null = null;
  private call: InCall | null = null;

  constructor(private readonly deps: SessionDeps) {
    const { config, log } = deps;
    this.pacing = { ...DEFAULT_PACING, ...deps.pacing };
    this.recognizer = new Recognizer(deps.createEngine, config.transcription, log);
    this.publisher = new TranscriptPublisher(
      deps.outbox,
      this.speakers,
      {
        wallAt: (seconds) => this.page?.timeline.wallAt(seconds) ?? null,
        startWall: () => this.page?.timeline.startWall() ?? null,
      },
      config.language,
      log,
      config.transcriptOrigin ? Date.parse(config.transcriptOrigin) : null,
    );
    const botName = () => this.commands.botName;
    const transcriptSeconds = (wall: number) => this.publisher.transcriptSeconds(wall);
    this.actions = new MeetingActions({ ...deps, speech: config.speech, botName, transcriptSeconds });
    this.commands = new CommandHandler({
      end: deps.end,
      actions: this.actions,
      settings: { language: config.language, task: config.task },
      botName: config.botName,
      onSettingsChange: (update) => {
        this.recognizer.engine?.reconfigure(update);
        if (update.language !== undefined) this.publisher.setLanguage(update.language);
      },
      log,
    });
    const engine = () => this.recognizer.engine;
    const timeline = () => this.page?.timeline;
    this.lag = new LagReporting({ ...deps, thresholds: deps.lagThresholds, timeline, engine });
    this.audio = new CapturedAudio({
      ...deps,
      recording: config.recording.enabled,
      publisher: this.publisher,
      speakers: this.speakers,
      engine,
      onSpeech: (at) => this.call?.timers.observeSpeech(at),
    });
    this.exit = new CallExit(() => this.page, log);
  }

  /** Leave, reconfigure, the chat, speech and an image, from the command stream. */
  handleCommand(command: BotCommand): void {
    this.commands.handle(command);
  }

  /** Whether the bot is speaking (or about to): its microphone is on on purpose. */
  get speaking(): boolean {
    return this.actions.speaking;
  }

  /**
   * How far the transcription is behind what the page hears (0 before audio), whether that is
   * reported, and whether the bot is still settling in: from its start until its video measures are
   * done in the call (its busiest seconds: the browser, the page, then every camera until the
   * setting holds), so its worker starts no other bot meanwhile (worker/fleet/bot-fleet.ts). A bot that
   * has waited LOBBY_SETTLED_MS in the lobby counts as settled there (nobody is letting it in yet),
   * and settles in again once admitted.
   */
  lagState(now = Date.now()): { lagSeconds: number; lagging: boolean; settling: boolean } {
    const settledInLobby = this.lobbySince !== null && now - this.lobbySince >= LOBBY_SETTLED_MS;
    return { ...this.lag.state(), settling: !(settledInLobby || (this.call?.settled ?? false)) };
  }

  async run(): Promise<Outcome> {
    try {
      return await this.runSteps();
    } finally {
      await this.cleanUp();
    }
  }

  private async runSteps(): Promise<Outcome> {
    const { end, outbox } = this.deps;
    const engineFailed = await this.recognizer.start(this.commands.settings, {
      onSegment: (segment) => {
        if (segment.text.trim() !== '') this.call?.timers.observeSpeech(Date.now());
        this.publisher.publish(segment);
      },
      onFatalError: (error) => end.end({ status: 'failed', reason: 'engine_error', detail: error.message }),
      onAudioDropped: (start, stop) => this.lag.engineDropped(start, stop),
    });
    if (engineFailed) return engineFailed;
    const { meetingUrl, platform, extraAllowedOrigins } = this.deps.config;
    const verdict = createNavigationPolicy(platform, extraAllowedOrigins).verdict(meetingUrl);
    if (verdict !== 'allow') {
      return { status: 'failed', reason: verdict, detail: 'meeting URL is not on an allowed host' };
    }
    const driver = (await this.openPage()).driver;
    try {
      await driver.open(meetingUrl);
    } catch (error) {
      if (end.outcome) return end.outcome;
      const unreachable = unreachablePageDetail(error);
      if (unreachable) return { status: 'failed', reason: 'meeting_unreachable', detail: unreachable };
      throw error;
    }
    await outbox.event({ status: 'joining' });

    const botName = () => this.commands.botName;
    const asked = await askToJoin(driver, { end, pacing: this.pacing, botName, log: this.deps.log });
    if (asked) return asked;
    this.exit.entered();
    this.lobbySince = Date.now();
    await outbox.event({ status: 'awaiting_admission' });

    const startCapture = () => this.audio.start(this.page);
    const { admissionTimeoutSeconds } = this.deps.config.automaticLeave;
    const lobby = { end, lobbyMs: this.pacing.lobbyMs, admissionTimeoutSeconds, botName, startCapture };
    const admitted = await awaitAdmission(driver, { ...lobby, exit: this.exit, log: this.deps.log });
    this.lobbySince = null;
    if (admitted) return admitted;
    await outbox.event({ status: 'active' });
    this.call = new InCall({
      ...this.deps,
      driver,
      automaticLeave: this.deps.config.automaticLeave,
      callMs: this.pacing.callMs,
      actions: this.actions,
      video: this.video,
      startCapture,
      transcriptSeconds: (wall) => this.publisher.transcriptSeconds(wall),
      botName,
      silenceOfDelivery: () => this.page?.silenceOfDelivery() ?? 0,
      checkLag: () => this.lag.check(),
      exit: this.exit,
    });
    return await this.call.stay();
  }

  /** The meeting page, with its speaking signals followed and the actions and video measures on it. */
  private async openPage(): Promise<MeetingPage> {
    const page = await (this.deps.openPage ?? openChromiumMeetingPage)(
      this.deps.config,
      {
        onSpeaking: (change) => {
          this.speakers.record(change);
          this.call?.participants?.speaking(change, this.page?.timeline.wallAt(change.at) ?? Date.now());
        },
        onFatal: (outcome) => this.deps.end.end(outcome),
      },
      this.deps.log,
      { storageState: this.deps.storageState },
    );
    this.page = page;
    const framesDecoded = () => page.videoFramesDecoded();
    this.video = new VideoMeasures(
      page.videoMeasures,
      framesDecoded,
      this.deps.log.child({ component: 'video' }),
    );
    this.actions.pageOpened(page);
    return page;
  }

  private async cleanUp(): Promise<void> {
    this.lag.finishCaptureLoss();
    await this.recognizer.finish();
    await this.page?.close();
    await this.audio.finishRecording();
    await this.deps.outbox.drain();
    this.deps.log.info({ segments: this.publisher.count() }, 'session cleaned up');
  }
}
