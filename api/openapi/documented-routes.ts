import { adminRoutes } from '../routes/admin/index.js';
import { botRoutes } from '../routes/bots/index.js';
import { calendarFeedRoutes } from '../routes/calendar-feeds/index.js';
import { screenRoutes } from '../routes/bots/screen.js';
import { speechRoutes } from '../routes/bots/speech.js';
import { healthRoutes } from '../routes/health.js';
import { mcpRoutes } from '../routes/mcp/index.js';
import { meetingRoutes } from '../routes/meetings/index.js';
import { recordingRoutes } from '../routes/recordings/index.js';
import type { Route } from '../routes/route.js';
import { searchRoutes } from '../routes/search/index.js';
import { transcriptRoutes } from '../routes/transcripts/index.js';
import { userRoutes } from '../routes/user/index.js';
import { liveSocketRoutes } from '../routes/ws/index.js';

/**
 * Every route folder the document describes, in the document's order. app.ts mounts the same
 * folders (test/integration/api/openapi.test.ts checks that the two agree).
 */
export const documentedRoutes: readonly Route<never>[] = [
  ...botRoutes,
  ...speechRoutes,
  ...screenRoutes,
  ...calendarFeedRoutes,
  ...meetingRoutes,
  ...transcriptRoutes,
  ...searchRoutes,
  ...liveSocketRoutes,
  ...recordingRoutes,
  ...userRoutes,
  ...mcpRoutes,
  ...adminRoutes,
  ...healthRoutes,
];
