import { adminRoutes } from '../routes/admin/index.js';
import { botRoutes } from '../routes/bots/index.js';
import { healthRoutes } from '../routes/health.js';
import { meetingRoutes } from '../routes/meetings/index.js';
import { recordingRoutes } from '../routes/recordings/index.js';
import type { Route } from '../routes/route.js';
import { transcriptRoutes } from '../routes/transcripts/index.js';
import { userRoutes } from '../routes/user/index.js';

/**
 * Every route folder the document describes, in the document's order. app.ts mounts the same
 * folders (test/integration/api/openapi.test.ts checks that the two agree).
 */
export const documentedRoutes: readonly Route<never>[] = [
  ...botRoutes,
  ...meetingRoutes,
  ...transcriptRoutes,
  ...recordingRoutes,
  ...userRoutes,
  ...adminRoutes,
  ...healthRoutes,
];
