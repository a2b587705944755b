// What the Meet and Teams pages do alike: the state a meeting page keeps, its link to the
// simulator, and the audio engine following the call (media starts on entering the call; on
// leaving it the engine stops and a fresh one waits for a rejoin). Each page brings its own
// screens, texts, traps and URL shapes through the hooks below.

import { AudioEngine } from './audio-engine.js';
import { PageCamera } from './camera.js';
import { PageMicrophone } from './microphone.js';
import { PageWeight } from './page-weight.js';
import { SimSession } from './session.js';
import { VideoLoad } from './video-load.js';

/** The state every meeting page keeps, with the page's own fields in `extra`. */
export function meetingPageState(extra = {}) {
  return {
    meeting: null,
    session: null,
    state: null,
    name: '',
    /** The account this browser is signed in as (a sign-in-only meeting's accounts); null: a guest. */
    signedInAs: null,
    micOn: true,
    cameraOn: true,
    present: [],
    engine: null,
    /** The screen that refused this page's join request (the meeting's `refusal`), if one did. */
    refusal: null,
    /** The meeting chat as this page has it (PageChatMessage), shown when its panel is open. */
    chat: [],
    /** Others' cameras come in (Meet: receive resolution not "Audio only"; Teams: incoming video on). */
    incomingVideo: true,
    ...extra,
  };
}

/** Whether the page shows the call now (admitted, a dialog over it, or in it). */
export function showsCall(ui) {
  return ui.state === 'in_call' || ui.state === 'admitted';
}

/** The meeting's people who are in the call now, in the order they came. */
export function presentParticipants(ui) {
  return ui.present.map((id) => ui.meeting.participants.find((p) => p.id === id)).filter(Boolean);
}

/**
 * Opens the page's session and handles the simulator's events into `ui`. The page's hooks:
 *   showLevel(participantId, level)  the speaking indicators, called by the audio engine
 *   render()                         draws the screen for ui.state
 *   notFound(data)                   a hello saying there is no such meeting
 *   found(data, first)               a hello with the meeting, once ui.meeting, ui.name and the
 *                                    engine are set and before its state applies; `first` for the
 *                                    page's first meeting hello (optional)
 *   stateChanging(state, previous)   ui.state has just changed; media and render follow (optional)
 *   participants(data)               who is in the call changed; the page sets ui.present
 *   utterance(event)                 an utterance started or ended playing (optional; see
 *                                    AudioEngine's onUtterance)
 *   chat(message)                    a chat message arrived, already in ui.chat (optional)
 */
const memoryHeld = [];

/**
 * The memory-hog trap: a page that keeps growing (a leak, a very heavy call). From `seconds` after
 * the call starts it allocates and touches 32 MB every 100 ms and keeps it, off the JS heap (typed
 * arrays), so what gives is the container's memory limit, not V8's heap limit.
 */
function growMemoryLater(seconds) {
  if (typeof seconds !== 'number') return;
  // Relentless once it starts (a tight loop, no pauses): a page that grows in steps can leave a
  // container thrashing just under its limit for minutes instead of being killed by it.
  setTimeout(() => {
    for (;;) memoryHeld.push(new Uint8Array(64 * 1024 * 1024).fill(1));
  }, seconds * 1000);
}

export function connectMeetingPage(
  ui,
  {
    platform,
    id,
    passcode,
    showLevel,
    render,
    notFound,
    found,
    stateChanging,
    participants,
    utterance,
    chat,
  },
) {
  const createEngine = () =>
    new AudioEngine({
      meeting: ui.meeting,
      report: (action) => ui.session.act(action),
      onLevel: showLevel,
      onUtterance: utterance,
    });

  const setState = (state) => {
    const previous = ui.state;
    ui.state = state;
    stateChanging?.(state, previous);
    if (state === 'in_call') ui.engine.start();
    if (state === 'in_call' && previous !== 'in_call')
      growMemoryLater(ui.meeting.traps.memoryHogAfterSeconds);
    if (previous === 'in_call' && state !== 'in_call') {
      ui.engine.stop();
      ui.engine = createEngine();
    }
    render();
  };

  ui.session = new SimSession({ platform, id, passcode });
  ui.session.connect({
    hello: (data) => {
      if (!data.found) return notFound(data);
      const firstHello = ui.meeting === null;
      ui.meeting = data.meeting;
      if (data.name) ui.name = data.name;
      // Signed in (the browser's session cookie): the page joins under the account's name.
      ui.signedInAs = data.signedInAs ?? null;
      ui.chat = data.chat ?? [];
      if (firstHello) {
        ui.engine = createEngine();
        // Teams' "Don't use audio" leaves the microphone off whatever its toggle says.
        ui.microphone = new PageMicrophone({
          live: () => ui.state === 'in_call' && ui.micOn && ui.computerAudio !== false,
          report: (action) => ui.session.act(action),
        });
        ui.camera = new PageCamera({
          live: () => ui.state === 'in_call' && ui.cameraOn,
          report: (action) => ui.session.act(action),
        });
        // The `load` setting: the real client's weight from the start, video while in the call.
        const load = ui.meeting.load;
        if (load?.pageWeight) ui.pageWeight = new PageWeight(platform);
        if (load && (load.cameras || load.screenShare !== 'off')) {
          ui.videoLoad = new VideoLoad({
            load,
            live: () => ui.state === 'in_call',
            present: () => presentParticipants(ui),
            incoming: () => ui.incomingVideo,
            report: (action) => ui.session.act(action),
          });
        }
      }
      found?.(data, firstHello);
      ui.refusal = data.refusal ?? null;
      setState(data.state);
    },
    state: (data) => {
      ui.refusal = data.refusal ?? null;
      setState(data.state);
    },
    participants,
    play: (data) => ui.engine?.play(data.utteranceId),
    stop: (data) => ui.engine?.stopUtterances(data.utteranceIds),
    chat: (data) => {
      if (ui.chat.some((message) => message.id === data.id)) return;
      ui.chat.push(data);
      chat?.(data);
    },
  });
}
