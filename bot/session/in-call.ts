import type { AutomaticLeaveConfig } from '../../shared/contract/bot-config.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { EndSignal, Outcome } from '../end-signal.js';
import type { ParticipantSink } from '../outbox.js';
import { ParticipantReporter } from '../participants/reporter.js';
import type { Observation, PlatformDriver } from '../platforms/driver.js';
import type { VideoMeasures } from '../video/video-measures.js';
import type { CallExit } from './call-exit.js';
import { runInCallStep } from './in-call-step.js';
import { LeaveTimers } from './leave-timers.js';
import type { MeetingActions } from './meeting-actions.js';
import { terminalOutcome } from './screen-outcome.js';

/** Looks at the call in its first checks that turn the microphone back off (Meet may switch it on around admission). */
const MUTE_CHECKS = 5;
/** Past this long without audio from the page, each look says so. */
const DELIVERY_SILENCE_WARN_MS = 5000;

export interface InCallDeps {
  driver: PlatformDriver;
  end: EndSignal;
  automaticLeave: AutomaticLeaveConfig;
  /** How often the call is looked at (ms). */
  callMs: number;
  actions: MeetingActions;
  /** The in-call side of the video measures, once the page is open. */
  video: VideoMeasures | null;
  /** Starts the audio capture (once; it may have started in the lobby). */
  startCapture(): Promise<void>;
  /** Where participants joining, leaving and speaking go (none: not reported). */
  participantSink?: ParticipantSink | undefined;
  transcriptSeconds(wall: number): number;
  botName(): string;
  /** Milliseconds since the page last delivered audio (0 before the first). */
  silenceOfDelivery(): number;
  /** At each look: whether the transcription falls behind (session/lag-reporting.ts). */
  checkLag(): void;
  exit: CallExit;
  log: Logger;
}

/**
 * The bot in the call, from admission to leaving: each look answers dialogs, follows who is there
 * and speaks, reads and writes the chat, turns others' cameras off and keeps the microphone off,
 * until the meeting ends, the bot is told to leave or leaves on its own (LeaveTimers).
 */
export class InCall {
  /** When the bot leaves on its own; speech heard anywhere restarts their silence clock. */
  readonly timers: LeaveTimers;
  private reporter: ParticipantReporter | null = null;
  private settledIn = false;

  constructor(private readonly deps: InCallDeps) {
    this.timers = new LeaveTimers(deps.automaticLeave, Date.now());
  }

  /** Participant events, from admission to leaving. */
  get participants(): ParticipantReporter | null {
    return this.reporter;
  }

  /** Settled in (lagState): the video measures are done. */
  get settled(): boolean {
    return this.settledIn;
  }

  async stay(): Promise<Outcome> {
    const { driver, end, actions, exit, log } = this.deps;
    const { pageInput } = actions;
    const timers = this.timers;
    await pageInput.run(() => driver.ensureMuted()).catch(() => {});
    await this.deps.startCapture();
    actions.admitted();
    this.reporter = this.createParticipantReporter();
    let checks = 0;
    while (!end.outcome) {
      try {
        const observation: Observation = await pageInput.run(() => driver.observe());
        const terminal = terminalOutcome(observation.screen);
        if (terminal) {
          exit.callEnded();
          this.reporter?.finish(Date.now());
          return terminal;
        }
        if (observation.screen.kind === 'dialog') await pageInput.run(() => driver.answerDialog());
        timers.observeOthers(observation.others, Date.now());
        this.reporter?.look(observation.people ?? null, Date.now());
        const chat = actions.chat;
        if (chat) await pageInput.run(() => chat.tick());
        await this.turnOffIncomingVideo();
        if (!this.deps.video?.pending) this.settledIn = true;
        await this.deps.video?.logDecoded();
        // Meet may switch the microphone back on around admission.
        // Under the page-input lock, deciding there: a request that came meanwhile is not undone.
        if (checks < MUTE_CHECKS) {
          await pageInput.run(async () => {
            if (!actions.speaking && !actions.showingImage) await driver.ensureMuted();
          });
        }
      } catch (error) {
        log.debug({ err: error }, 'call observation interrupted');
      }
      checks += 1;
      const due = timers.due(Date.now());
      if (due) {
        log.info({ reason: due }, 'leaving on my own');
        end.end({ status: 'completed', reason: due });
        break;
      }
      if (this.deps.silenceOfDelivery() > DELIVERY_SILENCE_WARN_MS)
        log.warn('the page stopped delivering audio');
      this.deps.checkLag();
      await end.sleep(this.deps.callMs);
    }
    this.reporter?.finish(Date.now());
    this.reporter = null;
    const unsent = actions.unsentChat();
    if (unsent > 0) log.warn({ unsent }, 'left with chat messages not sent');
    await exit.leave(driver);
    return end.outcome ?? { status: 'completed', reason: 'stopped' };
  }

  /**
   * Others' cameras off through the platform's setting, under the page-input lock (its menus and the
   * toggles' clicks must not interleave); after the look so a dialog is answered first. It gives way
   * to a switch or a chat message asked for meanwhile and is tried again at a later look.
   */
  private async turnOffIncomingVideo(): Promise<void> {
    const { video, driver, end, actions, log } = this.deps;
    if (!video?.pending) return;
    const { pageInput } = actions;
    await pageInput.run(() =>
      runInCallStep(
        { end, driver, lookMs: this.deps.callMs, log },
        (abandoned) => video.turnOffIncomingVideo(driver, abandoned),
        () => pageInput.waiting > 0 || actions.unsentChat() > 0,
      ),
    );
  }

  private createParticipantReporter(): ParticipantReporter | null {
    const { participantSink } = this.deps;
    if (!participantSink) return null;
    return new ParticipantReporter({
      publish: (change) => participantSink.participant(change),
      transcriptSeconds: this.deps.transcriptSeconds,
      botName: this.deps.botName,
      log: this.deps.log.child({ component: 'participants' }),
    });
  }
}
