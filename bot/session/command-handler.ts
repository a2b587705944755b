import type { BotCommand } from '../../shared/contract/commands.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { EndSignal } from '../end-signal.js';
import type { EngineSettings } from '../engines/engine.js';
import type { MeetingActions } from './meeting-actions.js';

/**
 * The command stream is read from its start, so a relaunched bot sees the speech its predecessor
 * was asked for: a request issued this long before this bot started is old news and not done.
 */
const STALE_SPEECH_MS = 5000;

export interface CommandHandlerDeps {
  end: EndSignal;
  actions: MeetingActions;
  /** The config's settings and name, which reconfigure commands change. */
  settings: EngineSettings;
  botName: string;
  /** The language or task changed: the engine and the transcript follow. */
  onSettingsChange(update: Partial<EngineSettings>): void;
  log: Logger;
}

/**
 * Takes the commands of the bot's command stream: leave, the chat, speech, an image, and
 * reconfigure, whose settings and name it keeps.
 */
export class CommandHandler {
  private readonly startedAt = Date.now();
  private currentSettings: EngineSettings;
  private currentBotName: string;

  constructor(private readonly deps: CommandHandlerDeps) {
    this.currentSettings = deps.settings;
    this.currentBotName = deps.botName;
  }

  /** The recognizer's settings as the last reconfigure left them. */
  get settings(): EngineSettings {
    return this.currentSettings;
  }

  /** The name the bot joins with (a rename applies to its next join). */
  get botName(): string {
    return this.currentBotName;
  }

  handle(command: BotCommand): void {
    const { actions, log } = this.deps;
    if (command.type === 'leave') {
      this.deps.end.end({ status: 'completed', reason: 'stopped', detail: 'leave command' });
      return;
    }
    if (command.type === 'chat.send') {
      actions.sendChat(command);
      return;
    }
    if (command.type === 'speak' || command.type === 'speak.stop') {
      if (this.isStale(command.issuedAt)) {
        log.info(
          { command: command.type, issuedAt: command.issuedAt },
          'ignoring speech asked of an earlier bot',
        );
        return;
      }
      actions.speech(command);
      return;
    }
    if (command.type === 'screen.show' || command.type === 'screen.stop') {
      if (this.isStale(command.issuedAt)) {
        log.info({ command: command.type }, 'ignoring an image asked of an earlier bot');
        return;
      }
      actions.showOrStopImage(command);
      return;
    }
    this.reconfigure(command);
  }

  private reconfigure(command: BotCommand & { type: 'reconfigure' }): void {
    const update: Partial<EngineSettings> = {};
    if (command.language !== undefined) update.language = command.language;
    if (command.task !== undefined) update.task = command.task;
    if (Object.keys(update).length > 0) {
      this.currentSettings = { ...this.currentSettings, ...update };
      this.deps.onSettingsChange(update);
    }
    if (command.botName !== undefined) {
      // Neither platform lets a guest rename itself once it asked to join; the name is used on the
      // next join (e.g. after a mid-join reload) and kept for the record.
      this.currentBotName = command.botName;
    }
    this.deps.log.info({ settings: this.currentSettings, botName: this.currentBotName }, 'reconfigured');
  }

  private isStale(issuedAt: string): boolean {
    return Date.parse(issuedAt) < this.startedAt - STALE_SPEECH_MS;
  }
}
