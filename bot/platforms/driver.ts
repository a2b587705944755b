import type { FailedReason } from '../../shared/contract/events.js';
import type { Platform } from '../../shared/contract/platforms.js';

/**
 * What the bot can tell about its place in a meeting from one look at the page.
 * - loading: nothing conclusive yet (page still building, blank moment between screens)
 * - prejoin: the join form is offered
 * - lobby: asked to join, not let in
 * - dialog: something modal must be answered before the bot can go on (e.g. "being recorded")
 * - in_call: admitted, with positive evidence of the call and none of the lobby
 */
export type Screen =
  | { kind: 'loading' }
  | { kind: 'prejoin' }
  | { kind: 'lobby' }
  | { kind: 'dialog'; detail: string }
  | { kind: 'in_call' }
  | { kind: 'ended'; reason: 'meeting_ended' | 'removed'; detail: string }
  | {
      kind: 'failed';
      reason: Extract<
        FailedReason,
        | 'admission_denied'
        | 'admission_timeout'
        | 'meeting_not_found'
        | 'blocked_by_platform'
        | 'verification_required'
        | 'sign_in_required'
      >;
      detail: string;
    };

/** Who the page shows in the call besides the bot, from one look. */
export interface PeopleSeen {
  /** Display names as the page shows them (tiles or the people list), the bot's own left out. */
  names: readonly string[];
  /**
   * The names are everyone: a name missing from them is really gone. False when the page counts
   * more people than it names (Meet pages its tiles), so an absence says nothing.
   */
  complete: boolean;
}

export interface Observation {
  screen: Screen;
  /** People in the call besides the bot; null when the page doesn't say. */
  others: number | null;
  /** Their names, in the call only (the same look's evidence: no extra page work); null elsewhere. */
  people?: PeopleSeen | null;
}

/** A chat message as the panel shows it now. */
export interface PanelChatMessage {
  /** The page's own id of the message (stable across looks). */
  key: string;
  /** The sender's name; null when the page shows none (Teams: the bot's own, or a grouped follow-up). */
  sender: string | null;
  /** True when the page says it is the bot's own (Meet heads those "You"). */
  own: boolean;
  text: string;
  /** When it was written (epoch ms) if the page says to the second (Teams' `time[datetime]`), else null. */
  sentAt: number | null;
}

/** The meeting chat through the page's own panel (bot/platforms/<platform>-chat.ts). */
export interface PlatformChat {
  /** Opens the chat panel if it is closed; true when its input is there. */
  open(): Promise<boolean>;
  /** Every message the open panel shows, oldest first. */
  read(): Promise<PanelChatMessage[]>;
  /** Types the text into the panel's input and sends it. */
  send(text: string): Promise<void>;
}

export interface PlatformDriver {
  /** The meeting chat; absent for a driver without one (tests' scripted pages). */
  readonly chat?: PlatformChat;
  readonly platform: Platform;
  /**
   * True where the platform shows its refusal of a link (a wrong passcode) with the same words as
   * its refusal of a suspected bot: Teams' "Sorry, we couldn't connect you". Seen before the bot
   * asked to join, the refusal is about the link (`meeting_not_found`, not retried); after, about the
   * bot (`blocked_by_platform`).
   */
  readonly refusesBadLinksAsBlocked?: boolean;
  /** Installed before the page's scripts: reports speaking changes through SPEAKING_BINDING. */
  readonly speakingScript: string;
  open(url: string): Promise<void>;
  /**
   * Does one step of the pre-join work the page asks for (interstitials, name, mic/camera off, the
   * join button) and returns what it did, or null when there was nothing to do.
   */
  prepareStep(name: string): Promise<string | null>;
  /**
   * What the page shows now. `quiet`: a look beside another step at work on the page (the session's
   * check that the call is still on), which sends the page no input of its own (a mouse move could
   * land between the other step's move and its press).
   */
  observe(options?: { quiet?: boolean }): Promise<Observation>;
  /** Answers what `observe` reported as a dialog; returns what it pressed, or null. */
  answerDialog(): Promise<string | null>;
  /** Keeps the bot's microphone and camera off (Meet turns them back on at admission). */
  ensureMuted(): Promise<void>;
  /**
   * Turns the microphone on or off in the call through the page's own toggle (speaking); true when
   * it is now as asked.
   */
  setMicrophone(on: boolean): Promise<boolean>;
  /** The same for the camera (showing an image). */
  setCamera(on: boolean): Promise<boolean>;
  /**
   * In the call: stops others' cameras reaching the page through the platform's own setting
   * (google-meet-audio-only.ts, teams-incoming-video-off.ts; bot/video/ decides whether to); true
   * when it is now off. Once `abandoned` is aborted (the call is over) it stops between its steps,
   * leaving the page to the bot's leave (step-stopped.ts). Absent: a driver without such a setting.
   */
  turnOffIncomingVideo?(abandoned: AbortSignal): Promise<boolean>;
  /** Leaves the lobby or the call through the page's own controls. */
  leave(): Promise<void>;
}
