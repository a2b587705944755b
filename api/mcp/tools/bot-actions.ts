import { z } from 'zod';
import { sendChatMessage } from '../../../shared/bots/chat.js';
import { chatSendAcceptedJson } from '../../../shared/bots/serialize.js';
import { speak, stopSpeaking } from '../../../shared/bots/speech.js';
import { speakAcceptedJson, speakStoppedJson } from '../../../shared/bots/speech-wire.js';
import { chatMessageJson } from '../../../shared/chat/serialize.js';
import { latestMeetingChat } from '../../../shared/chat/service.js';
import { sendChatRequest, speakRequest, speakRequestOf } from '../../routes/bots/schema.js';
import { meetingRefParams } from '../../routes/path-params.js';
import { meetingRefShape, pageShape } from '../arguments.js';
import { defineTool, parseArguments } from '../tool.js';

// The bot's actions in a meeting: only an active bot of yours takes them (`Bot not found` otherwise).

export const speakTool = defineTool({
  name: 'speak',
  title: 'Speak in a meeting',
  description:
    "POST /bots/{platform}/{native_meeting_id}/speak: the active bot says `text` in the meeting (or plays a clip: audio_url, audio_base64), unmuting only while it speaks. Requests play in order. Counts against the per-key bot action limit; refused when the bot's speech queue is full.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  shape: () => ({ ...meetingRefShape, ...speakRequest.shape }),
  parse: (args) => ({
    ref: parseArguments(meetingRefParams, args),
    body: parseArguments(speakRequest, args),
  }),
  async call({ ref, body }, { deps, auth, log }) {
    await deps.rateLimits.botAction(auth.keyId);
    const accepted = await speak(
      { ...deps.speech, log },
      auth,
      ref.platform,
      ref.native_meeting_id,
      speakRequestOf(body),
    );
    return { json: speakAcceptedJson(accepted) };
  },
});

export const stopSpeakingTool = defineTool({
  name: 'stop_speaking',
  title: 'Stop speaking',
  description:
    'DELETE /bots/{platform}/{native_meeting_id}/speak: interrupts the bot, drops its queued speech and mutes it.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  shape: () => meetingRefShape,
  parse: (args) => parseArguments(meetingRefParams, args),
  async call(ref, { deps, auth, log }) {
    await deps.rateLimits.botAction(auth.keyId);
    const meeting = await stopSpeaking({ ...deps.speech, log }, auth, ref.platform, ref.native_meeting_id);
    return { json: speakStoppedJson(meeting) };
  },
});

export const sendChatMessageTool = defineTool({
  name: 'send_chat_message',
  title: 'Write in the meeting chat',
  description:
    "POST /bots/{platform}/{native_meeting_id}/chat: the active bot writes `text` in the meeting's chat. The message shows in read_chat once the bot read it back. Counts against the per-key bot action limit.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  shape: () => ({ ...meetingRefShape, ...sendChatRequest.shape }),
  parse: (args) => ({
    ref: parseArguments(meetingRefParams, args),
    body: parseArguments(sendChatRequest, args),
  }),
  async call({ ref, body }, { deps, auth, log }) {
    await deps.rateLimits.botAction(auth.keyId);
    const queued = await sendChatMessage(
      { ...deps.bots, log },
      auth,
      ref.platform,
      ref.native_meeting_id,
      body.text,
    );
    return { json: chatSendAcceptedJson(queued) };
  },
});

export const readChatTool = defineTool({
  name: 'read_chat',
  title: 'Read the meeting chat',
  description:
    "GET /bots/{platform}/{native_meeting_id}/chat: the chat messages the bot read in the latest meeting with this id, in the meeting's order, a page at a time (sender, text, is_from_bot, sent_at, start).",
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: (deps) => ({ ...meetingRefShape, ...pageShape(deps.pageSizes) }),
  parse: (args, deps) => ({
    ref: parseArguments(meetingRefParams, args),
    page: parseArguments(z.object(pageShape(deps.pageSizes)), args),
  }),
  async call({ ref, page }, { deps, auth }) {
    const { meeting, messages } = await latestMeetingChat(
      deps.db,
      auth,
      ref.platform,
      ref.native_meeting_id,
      page,
    );
    return { json: { meeting_id: meeting.id, messages: messages.map(chatMessageJson) } };
  },
});
