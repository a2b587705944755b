import { z } from 'zod';
import { isValidMeetingId, SIM_PLATFORMS, TEAMS_PASSCODE_PATTERN } from './ids.js';
import { seconds } from './script-time.js';
import { PLATFORM_SPEAKING_SIGNALS, speakingInput } from './speaking-signals.js';
import { NO_TRAPS, PLATFORM_ONLY_TRAPS, trapsInput } from './traps.js';

/** flite's voices that speak (awb_time only reads clock times). */
export const VOICES = ['kal16', 'slt', 'rms', 'awb', 'kal'] as const;
export type Voice = (typeof VOICES)[number];

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
    traps: trapsInput.default(NO_TRAPS),
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
    for (const [trap, platform] of PLATFORM_ONLY_TRAPS) {
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
