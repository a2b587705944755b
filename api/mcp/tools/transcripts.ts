import { z } from 'zod';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import { BadRequestError } from '../../../shared/infra/errors.js';
import { TRANSCRIPT_FORMATS } from '../../../shared/transcripts/export-formats.js';
import {
  meetingTranscriptAnswer,
  meetingTranscriptExport,
  transcriptAnswer,
  transcriptExport,
} from '../../../shared/transcripts/service.js';
import { meetingRefParams } from '../../routes/path-params.js';
import { meetingIdShape, meetingRefShape } from '../arguments.js';
import { defineTool, parseArguments } from '../tool.js';

const format = z
  .enum(TRANSCRIPT_FORMATS, { error: `must be one of ${TRANSCRIPT_FORMATS.join(', ')}` })
  .default('json')
  .describe(
    '`json` (default: the meeting and its segments with start, end, text, speaker, language, times), `txt` (`[HH:MM:SS] Speaker: text` lines), `srt` or `vtt` subtitles',
  );

/** Either a meeting id, or a platform and native id (the latest such meeting, as GET /transcripts). */
const transcriptArguments = z.object({
  meeting_id: meetingIdShape.meeting_id.optional(),
  platform: meetingRefShape.platform.optional(),
  native_meeting_id: meetingRefShape.native_meeting_id.optional(),
  format,
});

export const getTranscriptTool = defineTool({
  name: 'get_transcript',
  title: 'Get a transcript',
  description: `GET /transcripts/{platform}/{native_meeting_id}: a meeting's transcript, segments in chronological order; while the meeting is active it grows and its latest segments may still change. Name the meeting by meeting_id, or by platform (${PLATFORMS.join(', ')}) and native_meeting_id (the latest meeting with that id). \`Meeting not found\` for one that is not yours.`,
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: () => transcriptArguments.shape,
  parse(args) {
    const parsed = parseArguments(transcriptArguments, args);
    if (parsed.meeting_id !== undefined) {
      if (parsed.platform !== undefined || parsed.native_meeting_id !== undefined)
        throw new BadRequestError('Arguments: give meeting_id, or platform and native_meeting_id, not both');
      return { meetingId: parsed.meeting_id, format: parsed.format };
    }
    if (parsed.platform === undefined && parsed.native_meeting_id === undefined)
      throw new BadRequestError('Arguments: give meeting_id, or platform and native_meeting_id');
    return { ref: parseArguments(meetingRefParams, args), format: parsed.format };
  },
  async call(args, { deps, auth }) {
    const { db, cache } = deps;
    if (args.format === 'json') {
      return {
        json: args.ref
          ? await transcriptAnswer(db, cache, auth, args.ref.platform, args.ref.native_meeting_id)
          : await meetingTranscriptAnswer(db, cache, auth, args.meetingId),
      };
    }
    const text = args.ref
      ? await transcriptExport(db, cache, auth, args.ref.platform, args.ref.native_meeting_id, args.format)
      : await meetingTranscriptExport(db, cache, auth, args.meetingId, args.format);
    return { text: text.body.toString('utf8') };
  },
});
