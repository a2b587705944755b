import { z } from 'zod';
import { isValidMeetingId, SIM_PLATFORMS, type SimPlatform, TEAMS_PASSCODE_PATTERN } from './ids.js';

/** flite's voices that speak (awb_time only reads clock times). */
export const VOICES = ['kal16', 'slt', 'rms', 'awb', 'kal'] as const;
export type Voice = (typeof VOICES)[number];

const seconds = z.number().finite().min(0).max(3600);

/** `<set>/<name>` of a recording in simulator/recordings.ts; a name, never a path. */
export const RECORDING_ID_PATTERN = /^[a-z][a-z0-9_-]{0,40}\/[A-Za-z0-9][A-Za-z0-9_.-]{0,120}$/;

export const utteranceInput = z
  .object({
    /** Seconds after the bot's media starts (admission, or answering the post-admission dialog). */
    at: seconds,
    /** Spoken by the participant's flite voice. */
    text: z.string().trim().min(1).max(500).optional(),
    /** A real recording played instead (simulator/recordings.ts), e.g. `librivox/<name>`. */
    clip: z
      .string()
      .regex(RECORDING_ID_PATTERN, 'must name a recording as <set>/<name>, e.g. librivox/<name>')
      .optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.text === undefined) === (value.clip === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['text'],
        message: 'give either text (spoken by the voice) or clip (a recording), not both or neither',
      });
    }
  });
export type UtteranceScript = z.output<typeof utteranceInput>;

export const chatMessageInput = z.object({
  /** Seconds after the bot's media starts, as for utterances. */
  at: seconds,
  text: z.string().trim().min(1).max(2000),
});
export type ChatMessageScript = z.output<typeof chatMessageInput>;

export const participantInput = z.object({
  name: z.string().trim().min(1).max(80),
  /** A distinct voice is assigned when absent. */
  voice: z.enum(VOICES).optional(),
  /** Seconds relative to the bot's media start; 0 (the default) means already in the call. */
  joinAt: seconds.default(0),
  leaveAt: seconds.optional(),
  utterances: z.array(utteranceInput).max(200).default([]),
  /** Messages the participant writes in the meeting chat (while present). */
  chat: z.array(chatMessageInput).max(200).default([]),
});

export const admissionInput = z.discriminatedUnion('policy', [
  /** The host lets the bot in this many seconds after it asked. */
  z.object({ policy: z.literal('after'), delaySeconds: seconds.default(1) }),
  /** Nobody acts until the control API admits or denies; optional lobby timeout. */
  z.object({ policy: z.literal('host'), timeoutSeconds: seconds.positive().optional() }),
  z.object({ policy: z.literal('deny'), delaySeconds: seconds.default(1) }),
  /** Meet shows only "Join now"; Teams and Zoom skip the lobby (Zoom: no waiting room). */
  z.object({ policy: z.literal('open') }),
  /** The platform refuses the join at once: "You can't join this video call" / Teams' verification screen. */
  z.object({ policy: z.literal('blocked') }),
]);
export type AdmissionPolicy = z.infer<typeof admissionInput>;

/**
 * The screens a platform puts before a bot it does not trust: `bot_detection` refuses the join (Meet's
 * "You can't join this video call", Teams' "Sorry, we couldn't connect you"); `verification` asks for
 * proof of a person (Google's unusual-traffic page with "I'm not a robot", Teams' "Verify you're a
 * real person").
 */
export const REFUSAL_SCREENS = ['bot_detection', 'verification'] as const;
export type RefusalScreen = (typeof REFUSAL_SCREENS)[number];

export const refusalInput = z.object({
  screen: z.enum(REFUSAL_SCREENS),
  /** How many join requests of the meeting are refused (then `admission` decides); every one when absent. */
  attempts: z.number().int().min(1).max(100).optional(),
});
export type Refusal = z.infer<typeof refusalInput>;

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

export const AUDIO_MODES = ['slots', 'mixed'] as const;
export type AudioMode = (typeof AUDIO_MODES)[number];

export const audioInput = z.object({
  /** Meet: 3 pooled `<audio>` slots (default) or one mixed track without `<audio>` elements. Teams: mixed only. */
  mode: z.enum(AUDIO_MODES).optional(),
  /** The remote tracks (and Meet's `<audio>` slots) appear this long after media starts. */
  trackDelaySeconds: seconds.default(0),
});

export const SCREEN_SHARE_MODES = ['off', 'on', 'half'] as const;
export type ScreenShareMode = (typeof SCREEN_SHARE_MODES)[number];

/**
 * The load a real meeting puts on a page besides audio (docs/benchmarks.md, "Realistic load"), off
 * by default. Video goes through the page's own loopback RTCPeerConnection pair, as the audio does,
 * so the page receives, decodes and shows real remote WebRTC video tracks.
 */
export const loadInput = z.object({
  /**
   * Each present participant's camera as a remote video track (Chromium's default codec, VP8): the
   * first 1280×720 at 30 fps (the large tile), the rest 640×360 at 15 fps (the grid); at most 9.
   */
  cameras: z.boolean().default(false),
  /** A 1920×1080 screen share at 5 fps: never, always, or on for 30 s and off for 30 s from the start. */
  screenShare: z.enum(SCREEN_SHARE_MODES).default('off'),
  /**
   * The weight of the real client's application: a script heap, a DOM and timers sized to the
   * published figures (docs/platform-landmarks.md, "Page weight"); Meet and Teams differ.
   */
  pageWeight: z.boolean().default(false),
});
export type Load = z.output<typeof loadInput>;
export type LoadInput = z.input<typeof loadInput>;
/** The benchmarks' realistic scenario, with 6 participants in the script: cameras on, a screen share half the time. */
export const REALISTIC_LOAD: Load = { cameras: true, screenShare: 'half', pageWeight: true };

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

/** Where Meet's page shows who is talking; each can be hidden per meeting (`speaking.hidden`). */
export const MEET_SPEAKING_SIGNALS = ['audio_level', 'tile_class', 'people_panel', 'webrtc'] as const;
export type MeetSpeakingSignal = (typeof MEET_SPEAKING_SIGNALS)[number];
/** Where Teams' page shows who is talking. */
export const TEAMS_SPEAKING_SIGNALS = ['outline_class', 'outline_style', 'webrtc'] as const;
export type TeamsSpeakingSignal = (typeof TEAMS_SPEAKING_SIGNALS)[number];
/**
 * Where Zoom's web client shows who is talking: the active-speaker frame (the large video names the
 * last person heard) and the speaker bar's `--active` tile; one mixed WebRTC source besides.
 */
export const ZOOM_SPEAKING_SIGNALS = ['active_speaker', 'webrtc'] as const;
export type ZoomSpeakingSignal = (typeof ZOOM_SPEAKING_SIGNALS)[number];
export type SpeakingSignal = MeetSpeakingSignal | TeamsSpeakingSignal | ZoomSpeakingSignal;
const SPEAKING_SIGNALS = [
  ...new Set<SpeakingSignal>([...MEET_SPEAKING_SIGNALS, ...TEAMS_SPEAKING_SIGNALS, ...ZOOM_SPEAKING_SIGNALS]),
] as [SpeakingSignal, ...SpeakingSignal[]];
const PLATFORM_SPEAKING_SIGNALS: Record<SimPlatform, readonly string[]> = {
  google_meet: MEET_SPEAKING_SIGNALS,
  teams: TEAMS_SPEAKING_SIGNALS,
  zoom: ZOOM_SPEAKING_SIGNALS,
};
/** Speaking classes seen on the real Meet's tiles (docs/platform-landmarks.md, "Who is speaking"); they churn. */
export const MEET_KNOWN_SPEAKING_CLASSES = ['Oaajhc', 'HX2H7', 'wEsLMd', 'OgVli'] as const;
export type MeetSpeakingClass = (typeof MEET_KNOWN_SPEAKING_CLASSES)[number];

export const speakingInput = z.object({
  /**
   * Signals the page never shows, to test a bot's speaker detection with one missing. Meet:
   * `audio_level` (the tile's data-audio-level stays "0"), `tile_class` (no speaking class on the
   * tile), `people_panel` (the People row's mic-level stays at opacity 0). Teams: `outline_class`
   * (vdi-frame-occlusion never toggles), `outline_style` (the outline's opacity and border-width
   * never change). Both: `webrtc` (no RTP audio-level header extension, so the receivers'
   * getSynchronizationSources() report no audioLevel).
   */
  hidden: z
    .array(
      z.enum(SPEAKING_SIGNALS, {
        error: `unknown speaking signal (google_meet: ${MEET_SPEAKING_SIGNALS.join(', ')}; teams: ${TEAMS_SPEAKING_SIGNALS.join(', ')}; zoom: ${ZOOM_SPEAKING_SIGNALS.join(', ')})`,
      }),
    )
    .max(SPEAKING_SIGNALS.length)
    .default([]),
  /** Meet: the class a speaking tile gets: a new generated name per page load, or a known real one. */
  tileClass: z.enum(['generated', ...MEET_KNOWN_SPEAKING_CLASSES]).default('generated'),
});
export type Speaking = z.output<typeof speakingInput>;
export type SpeakingInput = z.input<typeof speakingInput>;

/** The cookie a browser presents to be signed in on the simulator's origin: `sim_account=<token>`. */
export const SIM_ACCOUNT_COOKIE = 'sim_account';

/**
 * Who may join: anyone (the default), or only signed-in users. A page whose browser presents an
 * account's session cookie (`sim_account=<token>`, set on the simulator's origin, as a Playwright
 * storage state carries it) is signed in as that account: no name field, and it joins under the
 * account's name. Anyone else gets the platform's sign-in screen (Meet's in-page "Sign in", Teams'
 * "Sign in to continue"), as with the `signInScreen` / `signIn` traps. An `expired` account's cookie
 * no longer signs in (also switched on mid-life: POST /api/meetings/:id/accounts/:name/expire).
 */
export const accessInput = z.object({
  signedInOnly: z.boolean().default(false),
  accounts: z
    .array(
      z.object({
        name: z.string().trim().min(1).max(80),
        token: z.string().regex(/^[A-Za-z0-9_-]{8,200}$/, 'must be 8 to 200 letters, digits, _ or -'),
        expired: z.boolean().default(false),
      }),
    )
    .max(20)
    .default([]),
});
export type Access = z.output<typeof accessInput>;

export const createMeetingInput = z
  .object({
    platform: z.enum(SIM_PLATFORMS),
    id: z.string().optional(),
    passcode: z.string().regex(TEAMS_PASSCODE_PATTERN).optional(),
    admission: admissionInput.default({ policy: 'after', delaySeconds: 1 }),
    /** The platform distrusts the bot: its first join requests meet this screen (see refusalInput). */
    refusal: refusalInput.optional(),
    audio: audioInput.default({ trackDelaySeconds: 0 }),
    traps: trapsInput.default({
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
    }),
    speaking: speakingInput.default({ hidden: [], tileClass: 'generated' }),
    load: loadInput.default({ cameras: false, screenShare: 'off', pageWeight: false }),
    access: accessInput.default({ signedInOnly: false, accounts: [] }),
    participants: z.array(participantInput).max(20).default([]),
    /** The host ends the meeting this many seconds after the bot's media starts. */
    endAt: seconds.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.platform !== 'google_meet' && value.audio.mode === 'slots') {
      ctx.addIssue({
        code: 'custom',
        path: ['audio', 'mode'],
        message: `${value.platform === 'teams' ? 'Teams' : 'Zoom'} delivers one mixed track only`,
      });
    }
    if (value.id !== undefined && !isValidMeetingId(value.platform, value.id)) {
      const shape = {
        google_meet: 'xxx-xxxx-xxx (lowercase letters)',
        teams: '9 to 20 digits',
        zoom: '9 to 11 digits',
      }[value.platform];
      ctx.addIssue({ code: 'custom', path: ['id'], message: `must look like ${shape}` });
    }
    if (value.platform === 'google_meet' && value.passcode !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['passcode'], message: 'Google Meet has no passcode' });
    }
    const platformOnly: [keyof Traps, SimPlatform][] = [
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
    for (const [trap, platform] of platformOnly) {
      const setting = value.traps[trap];
      if (value.platform !== platform && setting !== undefined && setting !== false) {
        ctx.addIssue({ code: 'custom', path: ['traps', trap], message: `only exists on ${platform}` });
      }
    }
    const signals = PLATFORM_SPEAKING_SIGNALS[value.platform];
    value.speaking.hidden.forEach((signal, index) => {
      if (!signals.includes(signal)) {
        const others = SIM_PLATFORMS.filter((platform) =>
          PLATFORM_SPEAKING_SIGNALS[platform].includes(signal),
        );
        ctx.addIssue({
          code: 'custom',
          path: ['speaking', 'hidden', index],
          message: `only exists on ${others.join(', ')}; ${value.platform} has ${signals.join(', ')}`,
        });
      }
    });
    if (value.platform !== 'google_meet' && value.speaking.tileClass !== 'generated') {
      ctx.addIssue({
        code: 'custom',
        path: ['speaking', 'tileClass'],
        message: 'only exists on google_meet',
      });
    }
    const accountNames = new Set<string>();
    const tokens = new Set<string>();
    value.access.accounts.forEach((account, index) => {
      if (accountNames.has(account.name) || tokens.has(account.token)) {
        ctx.addIssue({
          code: 'custom',
          path: ['access', 'accounts', index],
          message: 'account names and tokens must be unique',
        });
      }
      accountNames.add(account.name);
      tokens.add(account.token);
    });
    const names = new Set<string>();
    value.participants.forEach((participant, index) => {
      if (names.has(participant.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['participants', index, 'name'],
          message: 'names must be unique',
        });
      }
      names.add(participant.name);
    });
  });
export type CreateMeetingInput = z.input<typeof createMeetingInput>;
export type CreateMeeting = z.output<typeof createMeetingInput>;
export type ParticipantScript = z.output<typeof participantInput>;
