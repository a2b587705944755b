import type { AnyMcpTool } from '../tool.js';
import { readChatTool, sendChatMessageTool, speakTool, stopSpeakingTool } from './bot-actions.js';
import { listRunningBotsTool, sendBotTool, stopBotTool } from './bots.js';
import { parseMeetingLinkTool } from './links.js';
import { getMeetingTool, listMeetingsTool, updateMeetingDataTool } from './meetings.js';
import { searchTool } from './search.js';
import { getTranscriptTool } from './transcripts.js';

/** Every MCP tool, in the order tools/list shows them. */
export const MCP_TOOLS: readonly AnyMcpTool[] = [
  parseMeetingLinkTool,
  sendBotTool,
  listRunningBotsTool,
  stopBotTool,
  listMeetingsTool,
  getMeetingTool,
  updateMeetingDataTool,
  getTranscriptTool,
  searchTool,
  speakTool,
  stopSpeakingTool,
  sendChatMessageTool,
  readChatTool,
];
