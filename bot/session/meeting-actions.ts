import type { SpeechConfig } from '../../shared/contract/bot-config.js';
import type { BotCommand, ChatSendCommand, SpeakCommand } from '../../shared/contract/commands.js';
import type { Logger } from '../../shared/infra/logger.js';
import { MeetingChat } from '../actions/chat.js';
import { lockedToggles, PageInputLock } from '../actions/page-input-lock.js';
import { ScreenShare } from '../actions/screen.js';
import { Speaker } from '../actions/speaker.js';
import type { MeetingPage } from '../meeting-page.js';
import type { ChatSink } from '../outbox.js';
import type { PlatformDriver } from '../platforms/driver.js';
import { createSpeechSynthesizer } from '../voices/index.js';
import type { SpeechSynthesizer } from '../voices/voice.js';

export type ScreenCommand = BotCommand & { type: 'screen.show' | 'screen.stop' };

export interface MeetingActionsDeps {
  /** Where the chat messages the bot reads go; without it the bot neither reads nor writes the chat. */
  chatSink?: ChatSink | undefined;
  /** The config's speech engine by default; tests pass their own. */
  synthesizer?: SpeechSynthesizer | undefined;
  speech: SpeechConfig;
  botName(): string;
  transcriptSeconds(wall: number): number;
  log: Logger;
}

/**
 * The bot's actions in the meeting (bot/actions/): the chat, speaking, and an image as its camera.
 * What is asked of them before the meeting page is open waits here for it.
 */
export class MeetingActions {
  /** The call page's mouse and keyboard, one user at a time (page-input-lock.ts). */
  readonly pageInput = new PageInputLock();
  private meetingChat: MeetingChat | null = null;
  /** Chat commands that came before the driver existed. */
  private readonly earlyChat: ChatSendCommand[] = [];
  private speaker: Speaker | null = null;
  /** Speak requests that came before the page was open. */
  private readonly pendingSpeech: SpeakCommand[] = [];
  private screen: ScreenShare | null = null;
  /** The last screen request that came before the page was open. */
  private pendingScreen: (BotCommand & { type: 'screen.show' }) | null = null;

  constructor(private readonly deps: MeetingActionsDeps) {}

  /** The page is open: the chat, the speaker and the screen take what waited for it. */
  pageOpened(page: MeetingPage): void {
    const { log } = this.deps;
    this.meetingChat = this.createChat(page.driver);
    this.speaker = new Speaker(
      page.media,
      lockedToggles(page.driver, this.pageInput),
      this.deps.synthesizer ?? createSpeechSynthesizer(this.deps.speech),
      log.child({ component: 'speaker' }),
    );
    for (const command of this.pendingSpeech.splice(0)) this.speaker.enqueue(command);
    this.screen = new ScreenShare(
      page.media,
      lockedToggles(page.driver, this.pageInput),
      log.child({ component: 'screen' }),
    );
    if (this.pendingScreen) this.showOrStopImage(this.pendingScreen);
    this.pendingScreen = null;
  }

  /** Admitted to the call: speech and an image asked for meanwhile may start. */
  admitted(): void {
    this.speaker?.admitted();
    this.screen?.admitted();
  }

  sendChat(command: ChatSendCommand): void {
    if (this.meetingChat) this.meetingChat.enqueue(command);
    else this.earlyChat.push(command);
  }

  speech(command: BotCommand & { type: 'speak' | 'speak.stop' }): void {
    if (command.type === 'speak.stop') {
      this.pendingSpeech.length = 0;
      void this.speaker?.stop();
      return;
    }
    if (this.speaker) this.speaker.enqueue(command);
    else this.pendingSpeech.push(command);
  }

  showOrStopImage(command: ScreenCommand): void {
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

  /** Whether the bot is showing an image (or about to): its camera is on on purpose. */
  get showingImage(): boolean {
    return this.screen?.busy ?? false;
  }

  /** The meeting chat, once the page is open (null without a chat sink or a driver's chat). */
  get chat(): MeetingChat | null {
    return this.meetingChat;
  }

  /** Chat messages asked for and not sent yet. */
  unsentChat(): number {
    return this.meetingChat?.unsent() ?? 0;
  }

  private createChat(driver: PlatformDriver): MeetingChat | null {
    const { chatSink } = this.deps;
    if (!driver.chat || !chatSink) return null;
    const chat = new MeetingChat({
      chat: driver.chat,
      publish: (message) => chatSink.chat(message),
      botName: this.deps.botName,
      transcriptSeconds: this.deps.transcriptSeconds,
      log: this.deps.log.child({ component: 'chat' }),
    });
    for (const command of this.earlyChat.splice(0)) chat.enqueue(command);
    return chat;
  }
}
