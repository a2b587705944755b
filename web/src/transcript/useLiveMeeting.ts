import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { followMeeting } from '../api/live-stream.js';
import type { ChatMessage, StatusEvent } from '../api/types.js';
import { TranscriptModel } from './transcript-model.js';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface LiveMeeting {
  transcript: TranscriptModel;
  version: number;
  chat: ChatMessage[];
  /** The latest status change the stream told (with its reason). */
  lastStatus: StatusEvent | undefined;
  state: StreamState;
  problem: string | undefined;
}

/**
 * A meeting's live stream while the page is open: the transcript (segments replaced in place by
 * id), the chat the bot read, status changes. Changes are drawn once per animation frame, so a
 * stream that sends thousands of segments at once (opening a long meeting) renders once, not each.
 */
export function useLiveMeeting(api: Api, ref: string | undefined): LiveMeeting {
  const transcript = useRef(new TranscriptModel()).current;
  const [version, setVersion] = useState(0);
  const [chat, setChat] = useState<ChatMessage[]>([]);
  const [lastStatus, setLastStatus] = useState<StatusEvent>();
  const [state, setState] = useState<StreamState>('connecting');
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    if (!ref) return;
    const abort = new AbortController();
    let frame = 0;
    const draw = () => {
      frame = 0;
      setVersion(transcript.version);
    };
    const chatSeen = new Set<number>();
    void followMeeting(
      api,
      ref,
      {
        segment(segment) {
          transcript.upsert(segment);
          frame ||= requestAnimationFrame(draw);
        },
        status: setLastStatus,
        chat(message) {
          if (chatSeen.has(message.id)) return;
          chatSeen.add(message.id);
          setChat((messages) => [...messages, message]);
        },
        end: () => setState('ended'),
        connected() {
          setState('live');
          setProblem(undefined);
        },
        problem(error, retryInMs) {
          setState(retryInMs === undefined ? 'failed' : 'reconnecting');
          setProblem(error.message);
        },
      },
      abort.signal,
    );
    return () => {
      abort.abort();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [api, ref]);

  return { transcript, version, chat, lastStatus, state, problem };
}
