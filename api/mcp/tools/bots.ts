import { runningBots, stopBot } from '../../../shared/bots/running-bots.js';
import { botStatusJson } from '../../../shared/bots/serialize.js';
import { createBot } from '../../../shared/bots/service.js';
import { meetingJson } from '../../../shared/meetings/serialize.js';
import { botRequestOf, createBotRequest } from '../../routes/bots/schema.js';
import { meetingRefParams } from '../../routes/path-params.js';
import { meetingRefShape } from '../arguments.js';
import { defineTool, parseArguments } from '../tool.js';

export const sendBotTool = defineTool({
  name: 'send_bot',
  title: 'Send a bot to a meeting',
  description:
    'POST /bots: sends a transcription bot into a Google Meet, Teams or Zoom meeting (Teams needs passcode, a Zoom passcode is optional; send meeting_url as parse_meeting_link gives it). Answers the new meeting, status `requested`; it moves to joining, awaiting_admission (someone in the meeting must admit the bot) and active, when the transcript starts to grow (get_meeting, get_transcript). With `join_at` (ISO 8601 with a time zone, in the future, within the scheduling horizon) the bot is scheduled instead: the meeting waits as `requested` with `data.join_at` and its bot launches then. With `authenticated: true` the bot signs in with one of the operator bot accounts (for meetings closed to anonymous guests, which otherwise fail with `sign_in_required`). Refused with `Invalid meeting ID format`, `Too many concurrent bots`, or when a bot is already in that meeting.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  shape: () => ({
    ...createBotRequest.shape,
    platform: createBotRequest.shape.platform.describe(meetingRefShape.platform.description ?? ''),
    native_meeting_id: createBotRequest.shape.native_meeting_id.describe(
      meetingRefShape.native_meeting_id.description ?? '',
    ),
    passcode: createBotRequest.shape.passcode.describe('Teams: required, the `p` of the meeting link'),
    meeting_url: createBotRequest.shape.meeting_url.describe(
      "The meeting's link (parse_meeting_link gives it); for Teams always send it",
    ),
    bot_name: createBotRequest.shape.bot_name.describe("The bot's display name in the meeting"),
  }),
  parse: (args) => parseArguments(createBotRequest, args),
  async call(body, { deps, auth, log }) {
    return { json: meetingJson(await createBot({ ...deps.bots, log }, auth, botRequestOf(body))) };
  },
});

export const stopBotTool = defineTool({
  name: 'stop_bot',
  title: 'Stop a bot',
  description:
    'DELETE /bots/{platform}/{native_meeting_id}: the bot leaves the meeting, which becomes `completed`; its transcript stays readable. `Bot not found` when no bot of yours is running there.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  shape: () => meetingRefShape,
  parse: (args) => parseArguments(meetingRefParams, args),
  async call(ref, { deps, auth, log }) {
    const meeting = await stopBot({ ...deps.bots, log }, auth, ref.platform, ref.native_meeting_id);
    return { json: meetingJson(meeting) };
  },
});

export const listRunningBotsTool = defineTool({
  name: 'list_running_bots',
  title: 'List running bots',
  description:
    'GET /bots/status: your bots that are starting or in a meeting (`running_bots`: meeting_id, platform, native_meeting_id, container_id).',
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: () => ({}),
  parse: () => undefined,
  async call(_args, { deps, auth }) {
    return { json: botStatusJson(await runningBots(deps, auth)) };
  },
});
