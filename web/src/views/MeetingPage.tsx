import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiError } from '../api/client.js';
import { knownMeeting } from '../api/meeting-cache.js';
import {
  isTerminal,
  type MeetingDetail,
  type MeetingEvent,
  meetingRef,
  type Recording,
} from '../api/types.js';
import { BotControls, ChatLog } from '../components/BotControls.js';
import { EditDetails } from '../components/EditDetails.js';
import { Exports } from '../components/Exports.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { StatusHistory } from '../components/StatusHistory.js';
import { Outcome, useAction } from '../components/useAction.js';
import { usePolling } from '../components/usePolling.js';
import { dateTime, duration, meetingDuration, meetingName, platformName } from '../format.js';
import { TranscriptView } from '../transcript/TranscriptView.js';
import { useLiveMeeting } from '../transcript/useLiveMeeting.js';
import { usePlayback } from '../transcript/usePlayback.js';

/** How often the meeting (recordings, end time) and its history are read again while something may change. */
const REFRESH_MS = 3000;

export function MeetingPage(props: { api: Api; id: number }) {
  const { api, id } = props;
  // What the list showed of it, until its details are read (so the live stream starts at once).
  const [meeting, setMeeting] = useState<MeetingDetail | undefined>(() => {
    const listed = knownMeeting(id);
    return listed && { ...listed, recordings: [] };
  });
  const [detailRead, setDetailRead] = useState(false);
  const [events, setEvents] = useState<MeetingEvent[]>([]);
  const [missing, setMissing] = useState<string>();
  const ref = meeting ? meetingRef(meeting) : undefined;
  const live = useLiveMeeting(api, ref);
  // A recording's media URL is kept once given (a fresh one on every read would reload the player),
  // and replaced by the latest one read if it stops working (its token expires after a while).
  const [mediaUrls, setMediaUrls] = useState<Record<number, string>>({});

  const load = async () => {
    try {
      const [detail, history] = await Promise.all([
        api.request<MeetingDetail>('GET', `/meetings/${id}`),
        api.request<{ events: MeetingEvent[] }>('GET', `/meetings/${id}/events`),
      ]);
      setMeeting(detail);
      setEvents(history.events);
      setDetailRead(true);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 404) setMeeting(undefined);
      setMissing(
        failure instanceof ApiError && failure.status === 404
          ? 'This meeting does not exist (or was deleted).'
          : `Could not read the meeting: ${(failure as Error).message}`,
      );
    }
  };
  const settled =
    detailRead &&
    meeting !== undefined &&
    isTerminal(meeting.status) &&
    !meeting.recordings.some((recording) => recording.state === 'recording');
  usePolling(() => (settled ? undefined : load()), REFRESH_MS, [api, id, settled]);
  // A status change on the stream: read the meeting and its history (with details) at once
  // (once for the burst of the whole history the stream starts with).
  const reload = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    if (!live.lastStatus) return;
    clearTimeout(reload.current);
    reload.current = setTimeout(() => void load(), 150);
  }, [live.lastStatus]);
  useEffect(() => () => clearTimeout(reload.current), []);
  useEffect(() => {
    if (meeting) document.title = `${meetingName(meeting)} · Meetbot`;
  }, [meeting?.data.name, meeting?.native_meeting_id]);

  const status = live.lastStatus?.status ?? meeting?.status;
  const recording: Recording | undefined = meeting?.recordings.find(
    (candidate) => candidate.state === 'ready',
  );
  useEffect(() => {
    if (recording && !mediaUrls[recording.id])
      setMediaUrls({ ...mediaUrls, [recording.id]: recording.media_url });
  }, [recording?.id]);
  const playback = usePlayback(recording, live.transcript, live.version);

  const stop = useAction();
  const remove = useAction();
  const [confirmDelete, setConfirmDelete] = useState(false);

  if (missing && !meeting)
    return (
      <section class="card">
        <h1>Meeting</h1>
        <p role="alert">{missing}</p>
        <a href="#/">Back to the meetings</a>
      </section>
    );
  if (!meeting || !ref || !status)
    return (
      <p class="card" aria-busy="true">
        Loading the meeting…
      </p>
    );

  const active = status === 'active';
  const ended = isTerminal(status);
  const length = meetingDuration(meeting);
  const name = meetingName(meeting);

  return (
    <div class="meeting">
      <section class="card meeting-head" aria-labelledby="meeting-title">
        <p>
          <a href="#/">← Meetings</a>
        </p>
        <h1 id="meeting-title">{name}</h1>
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd aria-live="polite" data-testid="meeting-status">
              <StatusBadge status={status} />
              {live.lastStatus?.reason && (
                <span class="reason"> ({live.lastStatus.reason.replaceAll('_', ' ')})</span>
              )}
            </dd>
          </div>
          <div>
            <dt>Platform</dt>
            <dd>
              {platformName(meeting.platform)} · {meeting.native_meeting_id}
            </dd>
          </div>
          {meeting.start_time && (
            <div>
              <dt>Started</dt>
              <dd>
                <time dateTime={meeting.start_time}>{dateTime(meeting.start_time)}</time>
              </dd>
            </div>
          )}
          {length !== undefined && (
            <div>
              <dt>Duration</dt>
              <dd>{duration(length)}</dd>
            </div>
          )}
          <div>
            <dt>Live transcript</dt>
            <dd>
              {live.state === 'live' ? 'connected' : live.state}
              {live.problem && live.state !== 'live' && <span class="hint"> ({live.problem})</span>}
            </dd>
          </div>
        </dl>
        <div class="actions">
          {!ended && (
            <button
              type="button"
              class="danger"
              disabled={stop.busy}
              onClick={() =>
                stop.run(async () => {
                  await api.request('DELETE', `/bots/${ref}`);
                  await load();
                  return 'The bot is leaving the meeting.';
                })
              }
            >
              {stop.busy ? 'Stopping…' : 'Stop the bot'}
            </button>
          )}
          {ended && !confirmDelete && (
            <button type="button" class="danger secondary" onClick={() => setConfirmDelete(true)}>
              Delete meeting…
            </button>
          )}
          {ended && confirmDelete && (
            <fieldset class="confirm">
              <legend>
                Delete this meeting's transcript, details and recordings for good (with earlier finished
                meetings of the same id)?
              </legend>
              <button
                type="button"
                class="danger"
                disabled={remove.busy}
                onClick={() =>
                  remove.run(async () => {
                    await api.request('DELETE', `/meetings/${ref}`);
                    location.hash = '#/';
                    return 'Deleted.';
                  })
                }
              >
                Delete for good
              </button>
              <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
                Keep it
              </button>
            </fieldset>
          )}
        </div>
        <Outcome action={stop} />
        <Outcome action={remove} />
      </section>

      <section class="card transcript-card" aria-labelledby="transcript-title">
        <h2 id="transcript-title">Transcript</h2>
        {recording ? (
          <div class="player">
            {/* biome-ignore lint/a11y/useMediaCaption: the transcript beside it is the recording's text */}
            <audio
              ref={playback.audio}
              controls
              preload="metadata"
              src={mediaUrls[recording.id]}
              aria-label="Recording of the meeting"
              onError={() => {
                if (mediaUrls[recording.id] !== recording.media_url)
                  setMediaUrls({ ...mediaUrls, [recording.id]: recording.media_url });
                else void load();
              }}
            />
            <p class="hint">Click a segment's time to play from there.</p>
          </div>
        ) : (
          meeting.recordings.length > 0 && (
            <p class="hint">
              {meeting.recordings.some((r) => r.state === 'recording')
                ? 'Recording… it can be played once the meeting ends.'
                : 'The recording failed.'}
            </p>
          )
        )}
        <TranscriptView
          segments={live.transcript.segments}
          version={live.version}
          currentIndex={playback.currentIndex}
          onSeek={recording ? playback.seek : undefined}
        />
        <Exports api={api} meetingRef={ref} baseName={`${meeting.platform}-${meeting.native_meeting_id}`} />
      </section>

      <div class="side">
        {active && <BotControls api={api} meetingRef={ref} />}
        <ChatLog messages={live.chat} />
        <StatusHistory events={events} />
        <EditDetails
          key={meeting.id}
          api={api}
          meeting={meeting}
          meetingRef={ref}
          onSaved={(saved) => setMeeting({ ...meeting, data: saved.data })}
        />
      </div>
    </div>
  );
}
