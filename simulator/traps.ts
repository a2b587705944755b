/**
 * The traps a meeting's script can switch on (`traps` in the create body), each one a way the real
 * pages have broken bots (docs/platform-landmarks.md); each is described where it is declared.
 */
import { z } from 'zod';
import type { SimPlatform } from './ids.js';
import { seconds } from './script-time.js';

export const MEET_JOIN_BUTTON_LABELS = [
  'Ask to join',
  'Join now',
  'Ask to join anyway',
  'Join anyway',
  'Join here too',
  'Join the call now',
  'Switch here',
] as const;

/** Meet's lobby texts besides "Asking to be let in…" (the `lobbyText` trap). */
export const MEET_LOBBY_TEXTS = [
  'Please wait until the meeting host admits you to the call',
  'Waiting to be let in…',
] as const;

/** The sign-in family's screens Teams shows an anonymous guest (the `signIn` trap). */
export const TEAMS_SIGN_IN_SCREENS = [
  'verify_info',
  'sign_in_to_continue',
  'enter_email',
  'pick_account',
  'login_form',
  'real_person',
] as const;
export type TeamsSignInScreen = (typeof TEAMS_SIGN_IN_SCREENS)[number];

/** Languages the meeting pages can be shown in. */
export const PAGE_LOCALES = ['en', 'de'] as const;
export type PageLocale = (typeof PAGE_LOCALES)[number];

export const trapsInput = z.object({
  /** Lobby shows the call's toolbar (Leave call, mic/camera) and a self preview with data-participant-id. */
  sharedControls: z.boolean().default(false),
  /** Meet: the toolbar hides after this many seconds without pointer movement. */
  toolbarAutoHideSeconds: seconds.positive().optional(),
  /** Meet: the join button reads this instead of "Ask to join" / "Join now" (variants seen in the field). */
  joinButtonLabel: z.enum(MEET_JOIN_BUTTON_LABELS).optional(),
  /** Meet: "Continue without microphone and camera" and a "Got it" notice before the name form. */
  interstitials: z.boolean().default(false),
  /** Meet: "This video call is being recorded" after admission; no media until "Join now". */
  recordingDialog: z.boolean().default(false),
  /** Meet: the mic and camera come back on after admission, whatever the pre-join choice was. */
  resetTogglesOnAdmission: z.boolean().default(false),
  /** Teams: "Are you sure you don't want audio or video?" after Join now when mic and camera are off. */
  noAudioVideoModal: z.boolean().default(false),
  /** Teams: the page reloads itself once, a moment after the pre-join form shows. */
  midJoinReload: z.boolean().default(false),
  /** Leaving asks for confirmation: Meet "Just leave the meeting", Teams "Leave". */
  leaveConfirmation: z.boolean().default(false),
  /** The page grows without end from this many seconds into the call (32 MB per 100 ms, kept). */
  memoryHogAfterSeconds: seconds.optional(),
  // ---- second pass (docs/platform-landmarks.md, the second-round entries) ----
  /**
   * Meet: each tile's name sits in a `span.notranslate`, after other labelled spans ("More options
   * for …"), as on the real page; a bot taking the tile's first text gets the wrong name.
   */
  notranslateNames: z.boolean().default(false),
  /**
   * Meet: the post-admission dialog is the recording-consent dialog: an MDC alert dialog whose
   * confirm button carries `data-mdc-dialog-action="ok"` and a reworded label; media waits for it.
   */
  consentDialog: z.boolean().default(false),
  /** Meet: the lobby shows only this variant of its waiting text instead of "Asking to be let in…". */
  lobbyText: z.enum(MEET_LOBBY_TEXTS).optional(),
  /** Meet: a refused request shows only "You left the meeting", no denial text and no buttons. */
  deniedAsLeft: z.boolean().default(false),
  /** Meet: the page opens on an in-page Google sign-in screen (heading "Sign in") instead of the form. */
  signInScreen: z.boolean().default(false),
  /**
   * Meet: the People panel is open in the call: a `role="list"` labelled "Participants", one row per
   * person named by its aria-label, each with a mic-level element whose opacity follows their speech.
   */
  peoplePanelOpen: z.boolean().default(false),
  /** Teams: `toggle-mute` / `toggle-video` are transparent checkbox inputs whose state is `checked`. */
  toggleInputs: z.boolean().default(false),
  /**
   * Teams: the call bar's camera toggle is labelled "Turn on video" / "Turn off video" instead of
   * "Turn camera on" / "Turn camera off" (builds differ; public bots list both orders, camera and video).
   */
  videoToggleLabels: z.boolean().default(false),
  /**
   * Teams: the chat's compose box is labelled "Type a new message" and has no `data-tid="ckeditor"`
   * (other builds; public bots look for both labels).
   */
  chatNewMessageInput: z.boolean().default(false),
  /** Teams: the launcher's buttons carry a title and a description line, named by their aria-labels. */
  launcherAriaLabels: z.boolean().default(false),
  /** Teams: the lobby shows a Cancel button (`data-tid="prejoin-cancel-button"`) that leaves the lobby. */
  lobbyCancel: z.boolean().default(false),
  /**
   * Teams: a moment after the form shows, the light client reloads itself with
   * `lightExperience=false`, back to the launcher with an empty form and the switches on.
   */
  fullExperienceReload: z.boolean().default(false),
  /** Teams: "Continue on this browser" leads to this screen of the sign-in family instead of the form. */
  signIn: z.enum(TEAMS_SIGN_IN_SCREENS).optional(),
  /**
   * Teams: live captions are on in the call: `data-tid="closed-caption-renderer-wrapper"` holds the
   * last 4 items, each an author (`data-tid="author"`) and a text (`data-tid="closed-caption-text"`)
   * that appears about 0.6 s after the speech starts and grows word by word over its length.
   */
  liveCaptions: z.boolean().default(false),
  // ---- Zoom (docs/platform-landmarks.md, "Zoom") ----
  /**
   * Zoom: after admission the "Join Audio" dialog asks how to hear the meeting ("Join Audio by
   * Computer"); the page plays no audio until it is answered.
   */
  joinAudioDialog: z.boolean().default(false),
  /**
   * Zoom: the host has not started the meeting: after Join the page shows "Waiting for the host to
   * start this meeting" for this many seconds, then asks to join (the waiting room follows).
   */
  hostStartsAfterSeconds: seconds.positive().optional(),
  /** Zoom: the host requires authentication: "Sign in to join this meeting" instead of the join form. */
  zoomSignIn: z.boolean().default(false),
  /** Zoom: the Participants pane is open in the call, one row per person (`.participants-item__display-name`). */
  participantsPanelOpen: z.boolean().default(false),
  /**
   * The page's language (English when absent). As on the real sites a request for English still
   * gets English: Meet's `hl=en` URL parameter, Teams' browser language (navigator.language, which
   * follows the context's locale and Accept-Language) starting with `en`.
   */
  locale: z.enum(PAGE_LOCALES).optional(),
  /** The page keeps its `locale` whatever the request asks for (a bot's English forcing defeated). */
  ignoreLanguageHints: z.boolean().default(false),
});
export type Traps = z.infer<typeof trapsInput>;

/** Every trap off: what a meeting's script gets when it names none. */
export const NO_TRAPS: Traps = {
  sharedControls: false,
  interstitials: false,
  recordingDialog: false,
  resetTogglesOnAdmission: false,
  noAudioVideoModal: false,
  midJoinReload: false,
  leaveConfirmation: false,
  notranslateNames: false,
  consentDialog: false,
  deniedAsLeft: false,
  signInScreen: false,
  peoplePanelOpen: false,
  toggleInputs: false,
  videoToggleLabels: false,
  chatNewMessageInput: false,
  launcherAriaLabels: false,
  lobbyCancel: false,
  fullExperienceReload: false,
  liveCaptions: false,
  joinAudioDialog: false,
  zoomSignIn: false,
  participantsPanelOpen: false,
  ignoreLanguageHints: false,
};

/** The traps only one platform has; the others refuse them. */
export const PLATFORM_ONLY_TRAPS: [keyof Traps, SimPlatform][] = [
  ['joinAudioDialog', 'zoom'],
  ['hostStartsAfterSeconds', 'zoom'],
  ['zoomSignIn', 'zoom'],
  ['participantsPanelOpen', 'zoom'],
  ['toolbarAutoHideSeconds', 'google_meet'],
  ['joinButtonLabel', 'google_meet'],
  ['interstitials', 'google_meet'],
  ['recordingDialog', 'google_meet'],
  ['resetTogglesOnAdmission', 'google_meet'],
  ['noAudioVideoModal', 'teams'],
  ['midJoinReload', 'teams'],
  ['notranslateNames', 'google_meet'],
  ['consentDialog', 'google_meet'],
  ['lobbyText', 'google_meet'],
  ['deniedAsLeft', 'google_meet'],
  ['signInScreen', 'google_meet'],
  ['peoplePanelOpen', 'google_meet'],
  ['toggleInputs', 'teams'],
  ['videoToggleLabels', 'teams'],
  ['chatNewMessageInput', 'teams'],
  ['launcherAriaLabels', 'teams'],
  ['lobbyCancel', 'teams'],
  ['fullExperienceReload', 'teams'],
  ['signIn', 'teams'],
  ['liveCaptions', 'teams'],
];
