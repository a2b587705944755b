/**
 * The simulator's control API: JSON over HTTP under /api, used by tests and by the dashboard.
 * Errors are `{ "error": "...", "details"?: [...] }` with 400 (bad input), 404 (no such meeting),
 * 409 (action not possible in the bot's current state) or 422 (a script that cannot play out).
 *
 *   POST   /api/meetings                      create a meeting → 201 MeetingSnapshot
 *   GET    /api/meetings                      → { meetings: MeetingSnapshot[] }
 *   GET    /api/meetings/:id                  → MeetingSnapshot (where the bot is, what played when)
 *   DELETE /api/meetings/:id                  → 204
 *   POST   /api/meetings/:id/admit            let the bot in from the lobby
 *   POST   /api/meetings/:id/deny             refuse the bot in the lobby
 *   POST   /api/meetings/:id/remove-bot       remove the bot from the call
 *   POST   /api/meetings/:id/end              the host ends the meeting for everyone
 *   POST   /api/meetings/:id/everyone-leaves  every participant leaves now; nobody else joins or speaks
 *   POST   /api/meetings/:id/accounts/:name/expire  the account's session cookie stops signing in
 *   (each action → 200 MeetingSnapshot)
 *
 * Create body (see schema.ts; everything but `platform` is optional):
 *   {
 *     "platform": "google_meet" | "teams" | "zoom",
 *     "id": "abc-defg-hij" | "123456789012",           // Teams: 9–20 digits, Zoom 9–11; generated when absent
 *     "passcode": "Ab12cd",                           // Teams: generated when absent; Zoom: optional (none when absent)
 *     "admission": { "policy": "after", "delaySeconds": 1 }   // default
 *                | { "policy": "host", "timeoutSeconds"?: 60 }  // the control API admits/denies
 *                | { "policy": "deny", "delaySeconds": 1 }
 *                | { "policy": "open" }                         // Meet shows only "Join now"
 *                | { "policy": "blocked" },                     // refused at once (anti-bot, sign-in)
 *     "refusal": { "screen": "bot_detection" | "verification", "attempts"?: 1 },
 *        // the platform distrusts the bot: its first `attempts` join requests (all when absent) meet
 *        // Meet's "You can't join this video call" / Teams' "Sorry, we couldn't connect you", or
 *        // Google's unusual-traffic page / Teams' "Verify you're a real person"; then `admission` applies
 *     "audio": { "mode": "slots" | "mixed", "trackDelaySeconds": 0 },
 *        // Meet default "slots": 3 <audio> elements under <body>, reassigned per utterance;
 *        // "mixed" (Teams always): one remote track, no per-person <audio> elements.
 *     "traps": { "sharedControls", "toolbarAutoHideSeconds" (Meet), "recordingDialog" (Meet),
 *                "interstitials" (Meet), "joinButtonLabel" (Meet: "Join here too", "Switch here", …),
 *                "resetTogglesOnAdmission" (Meet), "noAudioVideoModal" (Teams), "midJoinReload" (Teams),
 *                "leaveConfirmation",   // the Teams modal shows when mic and camera are both off
 *                // second pass (docs/platform-landmarks.md, second round); see traps.ts for each:
 *                "notranslateNames", "consentDialog", "lobbyText", "deniedAsLeft", "signInScreen",
 *                "peoplePanelOpen" (Meet); "toggleInputs", "launcherAriaLabels", "lobbyCancel",
 *                "fullExperienceReload", "signIn": "verify_info" | "sign_in_to_continue" |
 *                "enter_email" | "pick_account" | "login_form" | "real_person", "liveCaptions" (Teams),
 *                Zoom: "joinAudioDialog", "hostStartsAfterSeconds", "zoomSignIn", "participantsPanelOpen";
 *                "locale": "en" | "de" (both: the page's language; Meet's hl=en and a Teams browser
 *                language starting with en still get English), "ignoreLanguageHints" (both: they don't) },
 *     "speaking": { "hidden": [...],   // speaking signals the page doesn't show: Meet "audio_level",
 *                                      // "tile_class", "people_panel"; Teams "outline_class",
 *                                      // "outline_style"; both "webrtc" (no RTP audio levels)
 *                   "tileClass": "generated" | "Oaajhc" | "HX2H7" | "wEsLMd" | "OgVli" },  // Meet
 *     // voices: kal16, slt, rms, awb, kal (flite); each participant gets a distinct one by default
 *     "participants": [{ "name": "Alice", "voice"?: "slt", "joinAt"?: 0, "leaveAt"?: 30,
 *                        "utterances": [{ "at": 2, "text": "Good morning everyone" },
 *                                       { "at": 6, "clip": "librivox/sense_and_sensibility_01_austen_64kb-0880" }] }],
 *     // an utterance is either `text` (spoken by the participant's voice) or `clip`: a recording of real
 *     // speech by name (`<set>/<name>` from recordings.ts: librivox, cards, asterisk; never a path)
 *     "access": { "signedInOnly": true,              // guests get the platform's sign-in screen
 *                 "accounts": [{ "name": "Ada Bot", "token": "sim-token-1", "expired"?: false }] },
 *        // a browser with the cookie sim_account=<token> on the simulator's origin is signed in as
 *        // that account: no name field, it joins under the account's name
 *     "endAt"?: 40                                     // the host ends the meeting then
 *   }
 * Times are seconds after the bot's media starts: the moment it is admitted, or, with the
 * recording dialog, the moment it answers "Join now". The script runs once per meeting.
 * Speech is synthesized with flite before the 201, so a created meeting is ready to play; a clip that
 * is not installed is a 400 naming the package to install. A clip's utterance reports the recording's
 * transcript as its `text` and its name as `clip` (null for spoken text).
 *
 * The snapshot's `bot.state` is one of none, prejoin, lobby, admitted (a dialog holds media back),
 * in_call, left, denied, timed_out, blocked, removed, ended; `bot.leaveReason` says how it left
 * (leave_button, dialog_leave, return_home, lobby_cancel, page_closed). Each utterance reports `status`
 * (scheduled, sent, playing, played, missed, cut) and `startedAt`/`endedAt`: the wall-clock
 * times the bot's page actually played its audio, read off the page's audio clock, and
 * `speechStartedAt`/`speechEndedAt`: the same less the clip's leading and trailing silence, when the
 * voice was heard (`beforeTracks`: it played before the page's remote tracks appeared, so a bot
 * could not hear it).
 */
import { Router } from '@koa/router';
import { z } from 'zod';
import { meetingIdParam, parseOr400, readJson } from './http.js';
import type { Meeting } from './meeting.js';
import type { MeetingRegistry } from './registry.js';
import { createMeetingInput } from './schema.js';

type MeetingAction = (meeting: Meeting) => void;

const accountNameParam = z.string().min(1).max(80);

const ACTIONS: Record<string, MeetingAction> = {
  admit: (meeting) => meeting.admit(),
  deny: (meeting) => meeting.deny(),
  'remove-bot': (meeting) => meeting.removeBot(),
  end: (meeting) => meeting.end(),
  'everyone-leaves': (meeting) => meeting.everyoneLeaves(),
};

export function controlRouter(registry: MeetingRegistry): Router {
  const router = new Router({ prefix: '/api' });
  const meetingOf = (raw: string) => registry.get(parseOr400(meetingIdParam, raw));

  router.post('/meetings', async (ctx) => {
    const script = await readJson(ctx, createMeetingInput);
    const meeting = await registry.create(script);
    ctx.status = 201;
    ctx.body = meeting.snapshot();
  });

  router.get('/meetings', (ctx) => {
    ctx.body = { meetings: registry.list().map((meeting) => meeting.snapshot()) };
  });

  router.get('/meetings/:id', (ctx) => {
    ctx.body = meetingOf(ctx.params.id!).snapshot();
  });

  router.delete('/meetings/:id', (ctx) => {
    registry.delete(parseOr400(meetingIdParam, ctx.params.id));
    ctx.status = 204;
  });

  router.post('/meetings/:id/accounts/:name/expire', (ctx) => {
    const meeting = meetingOf(ctx.params.id!);
    meeting.expireAccount(parseOr400(accountNameParam, ctx.params.name));
    ctx.body = meeting.snapshot();
  });

  for (const [name, action] of Object.entries(ACTIONS)) {
    router.post(`/meetings/:id/${name}`, (ctx) => {
      const meeting = meetingOf(ctx.params.id!);
      action(meeting);
      ctx.body = meeting.snapshot();
    });
  }

  return router;
}
