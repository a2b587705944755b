// A look-alike of Zoom's web client, reproducing what the real one shows a bot: the invitation
// link's landing page, the join form's ids and classes, the waiting room and the other texts and
// traps from docs/platform-landmarks.md ("Zoom").

import { ChatPanel } from '../common/chat.js';
import { h, show } from '../common/dom.js';
import { pageLanguage, translator } from '../common/language.js';
import {
  connectMeetingPage,
  meetingPageState,
  presentParticipants,
  showsCall,
} from '../common/meeting-page.js';
import { showsSignal } from '../common/speaking.js';
import { GERMAN } from './zoom-de.js';

const SPEAKING_THRESHOLD = 0.02;
/** The speaker bar's `--active` outline stays this long after the voice drops (between words). */
const ACTIVE_HANGOVER_MS = 400;
/**
 * Rows the chat list keeps in its DOM: the real list is virtualized (react-virtualized), so only the
 * rows in view are there, and a run's sender header may be scrolled out of it.
 */
const CHAT_ROWS_IN_VIEW = 12;
const root = document.getElementById('root');
const params = new URLSearchParams(location.search);
// Two URL shapes: the invitation link /j/<id>?pwd=… (the landing page) and the web client's
// /wc/<id>/join?pwd=… (the join form).
const [, section, rawId] = location.pathname.split('/');
const onLanding = section === 'j';
const meetingId = decodeURIComponent(rawId ?? '');
const linkPasscode = params.get('pwd') ?? undefined;

const ui = meetingPageState({
  /** The passcode this page's session was opened with (the link's, then the one typed). */
  passcode: linkPasscode,
  /** The meeting asks for a passcode the page does not have (or had wrong). */
  needsPasscode: false,
  passcodeWrong: false,
  /** What is typed in the passcode field (kept across redraws). */
  typedPasscode: '',
  /** Join pressed with a new passcode: ask as soon as the meeting answers. */
  askWhenFound: false,
  /** Join pressed before the host started the meeting (the `hostStartsAfterSeconds` trap). */
  waitingForHost: false,
  hostStarted: false,
  notFoundReason: null,
  leaveMenu: false,
  notice: null,
  /** The participant the large video shows: the last one heard. */
  activeSpeaker: null,
});
const browserLanguage = (navigator.languages?.[0] ?? navigator.language ?? '').toLowerCase();
const t = translator(GERMAN, () => pageLanguage(ui.meeting?.traps, browserLanguage.startsWith('en')));
const activeUntil = new Map();

function button(label, onclick, extra = {}) {
  return h('button', { type: 'button', onclick, ...extra }, label);
}

// ---- the invitation link's landing page ----

function landing() {
  document.title = 'Launch Meeting - Zoom';
  const toBrowser = () => {
    const next = new URLSearchParams(params);
    location.assign(`/wc/${encodeURIComponent(meetingId)}/join${next.size ? `?${next}` : ''}`);
  };
  show(
    root,
    h(
      'main',
      { class: 'launch' },
      h('h1', {}, t('Click Open Zoom Workplace on the dialog shown by your browser')),
      h('p', {}, t('If you don\u2019t see a dialog, click Launch Meeting below')),
      button(t('Launch Meeting'), () => {}, { class: 'zm-btn--primary', role: 'button' }),
      h(
        'p',
        {},
        t('Having issues with Zoom Workplace?'),
        ' ',
        h('a', { role: 'button', tabindex: '0', onclick: toBrowser }, t('Join from your browser')),
      ),
    ),
  );
}

// ---- errors before the form ----

function invalidMeeting() {
  document.title = 'Error - Zoom';
  show(
    root,
    h(
      'main',
      { class: 'message' },
      h('h1', {}, t('This meeting ID is not valid. Please check and try again.')),
      button(t('OK'), () => {}, { class: 'zm-btn--primary' }),
    ),
  );
}

/** The host requires authentication (the `zoomSignIn` trap, or a sign-in-only meeting for a guest). */
function signInScreen() {
  document.title = 'Sign In - Zoom';
  show(
    root,
    h(
      'main',
      { class: 'message' },
      h('h1', {}, t('Sign in to join this meeting')),
      h('p', {}, t('The host requires authentication on the commercial Zoom platform to join this meeting')),
      button(t('Sign In'), () => {}, { class: 'zm-btn--primary login-btn-zoom' }),
    ),
  );
}

// ---- the join form (name, passcode, the preview's mute and video buttons) ----

function reportToggles() {
  ui.session.act({ type: 'toggles', micOn: ui.micOn, cameraOn: ui.cameraOn });
}

function renderForm() {
  document.title = 'Join Meeting - Zoom';
  const join = button(t('Join'), onJoin, { class: 'zm-btn preview-join-button' });
  const passcodeFilled = () => !ui.needsPasscode || ui.typedPasscode.trim().length > 0;
  const refresh = () => {
    join.disabled = (ui.signedInAs === null && ui.name.trim().length === 0) || !passcodeFilled();
  };
  const nameInput =
    ui.signedInAs === null
      ? h('input', {
          id: 'input-for-name',
          type: 'text',
          placeholder: t('Your Name'),
          'aria-label': t('Your Name'),
          autocomplete: 'off',
          oninput: (event) => {
            ui.name = event.target.value;
            refresh();
          },
        })
      : null;
  if (nameInput) nameInput.value = ui.name;
  const passcodeInput = ui.needsPasscode
    ? h('input', {
        id: 'input-for-pwd',
        type: 'password',
        placeholder: t('Meeting Passcode'),
        'aria-label': t('Meeting Passcode'),
        autocomplete: 'off',
        oninput: (event) => {
          ui.typedPasscode = event.target.value;
          refresh();
        },
      })
    : null;
  if (passcodeInput) passcodeInput.value = ui.typedPasscode;
  refresh();
  const toggle = (kind) => () => {
    if (kind === 'mic') ui.micOn = !ui.micOn;
    else ui.cameraOn = !ui.cameraOn;
    reportToggles();
    renderForm();
  };
  show(
    root,
    h(
      'main',
      { class: 'preview-meeting-info' },
      h('h1', {}, t('Join Meeting')),
      h(
        'div',
        { class: 'preview-video' },
        ui.cameraOn ? '' : (ui.signedInAs ?? (ui.name.trim() || t('Your Name'))),
      ),
      h(
        'div',
        { class: 'preview-controls' },
        button(t(ui.micOn ? 'Mute' : 'Unmute'), toggle('mic'), {
          id: 'preview-audio-control-button',
          'aria-label': t(ui.micOn ? 'Mute' : 'Unmute'),
        }),
        button(t(ui.cameraOn ? 'Stop Video' : 'Start Video'), toggle('camera'), {
          id: 'preview-video-control-button',
          'aria-label': t(ui.cameraOn ? 'Stop Video' : 'Start Video'),
        }),
      ),
      ui.signedInAs !== null && h('p', { class: 'account-name' }, ui.signedInAs),
      nameInput,
      passcodeInput,
      ui.passcodeWrong && h('p', { class: 'error', role: 'alert' }, t('Passcode wrong')),
      h('label', {}, h('input', { type: 'checkbox' }), ' ', t('Remember my name for future meetings')),
      join,
      h(
        'p',
        { class: 'terms' },
        t('By clicking "Join", you agree to our Terms of Service and Privacy Statement'),
      ),
    ),
  );
}

function onJoin() {
  const typed = ui.typedPasscode.trim();
  if (ui.needsPasscode && typed) {
    // A passcode typed in: the page opens the meeting with it and joins if it is right.
    ui.askWhenFound = true;
    openSession(typed);
    return;
  }
  requestJoin();
}

/** The host may not have started the meeting yet: the page waits, then asks (the waiting room follows). */
function requestJoin() {
  const startsAfter = ui.meeting.traps.hostStartsAfterSeconds;
  if (startsAfter !== undefined && !ui.hostStarted) {
    ui.waitingForHost = true;
    render();
    setTimeout(() => {
      ui.hostStarted = true;
      if (!ui.waitingForHost) return;
      ui.waitingForHost = false;
      ask();
    }, startsAfter * 1000);
    return;
  }
  ask();
}

function ask() {
  ui.session.act({
    type: 'ask',
    name: (ui.signedInAs ?? ui.name).trim(),
    micOn: ui.micOn,
    cameraOn: ui.cameraOn,
  });
}

function waitingScreen(text) {
  document.title = 'Zoom';
  show(
    root,
    h(
      'main',
      { class: 'waiting' },
      h('h1', {}, text),
      h('p', {}, t("{0}'s Zoom Meeting", 'Host')),
      button(
        t('Leave'),
        () => {
          if (ui.waitingForHost) {
            ui.waitingForHost = false;
            return render();
          }
          ui.session.act({ type: 'leave', via: 'lobby_cancel' });
        },
        { class: 'leave-btn' },
      ),
    ),
  );
}

// ---- in the meeting ----

function videoFrame(className, name, extra = {}) {
  return h(
    'div',
    { class: className, ...extra },
    h(
      'div',
      { class: 'video-avatar__avatar' },
      h('div', { class: 'video-avatar__avatar-footer' }, h('span', {}, name)),
    ),
  );
}

function audioJoined() {
  return ui.state === 'in_call';
}

function footer() {
  const count = ui.present.length + 1;
  const audioLabel = !audioJoined()
    ? t('join audio')
    : t(ui.micOn ? 'mute my microphone' : 'unmute my microphone');
  return h(
    'div',
    { class: 'footer', role: 'toolbar', 'aria-label': t('Meeting controls') },
    button(audioJoined() ? t(ui.micOn ? 'Mute' : 'Unmute') : t('Join Audio'), toggleInCall('mic'), {
      class: 'footer-button-base__button ax-outline join-audio-container__btn',
      'aria-label': audioLabel,
    }),
    button(t(ui.cameraOn ? 'Stop Video' : 'Start Video'), toggleInCall('camera'), {
      class: 'footer-button-base__button ax-outline send-video-container__btn',
      'aria-label': t(ui.cameraOn ? 'stop my video' : 'start my video'),
    }),
    button(t('Participants'), () => {}, {
      class: 'footer-button-base__button ax-outline',
      'aria-label': t('open the participants list pane,[{0}] particpants', count),
    }),
    button(t('Chat'), () => chat.toggle(renderCall), {
      class: 'footer-button-base__button ax-outline',
      'aria-label': t(chat.open ? 'close the chat panel' : 'open the chat panel'),
    }),
    h('div', { role: 'button', tabindex: '0', 'aria-label': t('More meeting control ') }, t('More')),
    button(t('Leave'), onLeave, {
      class: 'footer-button-base__button ax-outline footer-button__button leave',
      'aria-label': t('Leave'),
    }),
  );
}

function toggleInCall(kind) {
  return () => {
    if (kind === 'mic') {
      // Before audio is joined the button opens the audio dialog instead.
      if (!audioJoined()) return;
      ui.micOn = !ui.micOn;
    } else {
      ui.cameraOn = !ui.cameraOn;
    }
    reportToggles();
    render();
  };
}

/** Leave opens a small menu whose "Leave Meeting" leaves (as the real client does for attendees). */
function onLeave() {
  ui.leaveMenu = !ui.leaveMenu;
  render();
}

function leaveMenu() {
  return h(
    'div',
    { class: 'leave-popover', role: 'dialog', 'aria-label': t('Leave') },
    button(t('Leave Meeting'), () => ui.session.act({ type: 'leave', via: 'leave_button' }), {
      class: 'zm-btn zm-btn--primary leave-meeting-options__btn',
    }),
  );
}

function participantsPane(people) {
  return h(
    'div',
    { class: 'participants-section-container' },
    h('h2', {}, t('Participants ({0})', people.length + 1)),
    h(
      'ul',
      { role: 'list', 'aria-label': t('Participants') },
      h(
        'li',
        { class: 'participants-item', role: 'listitem' },
        h('span', { class: 'participants-item__display-name' }, ui.name.trim()),
        h('span', { class: 'participants-item__name-label' }, t('(Me)')),
      ),
      ...people.map((p) =>
        h(
          'li',
          { class: 'participants-item', role: 'listitem' },
          h('span', { class: 'participants-item__display-name' }, p.name),
        ),
      ),
    ),
  );
}

function joinAudioDialog() {
  return h(
    'div',
    { class: 'zm-modal' },
    h(
      'div',
      { class: 'zm-modal-body', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('Join Audio') },
      h('div', { class: 'zm-modal-body-title' }, t('Join Audio')),
      button(t('Join Audio by Computer'), () => ui.session.act({ type: 'accept-dialog' }), {
        class: 'zm-btn zm-btn--primary join-audio-by-voip__join-btn',
      }),
    ),
  );
}

function renderCall() {
  document.title = 'Zoom Meeting';
  const people = presentParticipants(ui);
  const self = ui.name.trim();
  const active = people.find((p) => p.id === ui.activeSpeaker);
  const now = performance.now();
  show(
    root,
    h(
      'div',
      { class: 'meeting-app' },
      h(
        'div',
        { class: 'meeting-body' },
        h(
          'div',
          { class: 'video-area' },
          h(
            'div',
            { class: 'speaker-bar-container' },
            ...people.map((p) =>
              videoFrame(
                (activeUntil.get(p.id) ?? 0) > now
                  ? 'speaker-bar-container__video-frame speaker-bar-container__video-frame--active'
                  : 'speaker-bar-container__video-frame',
                p.name,
                { 'data-participant': p.id },
              ),
            ),
            videoFrame('speaker-bar-container__video-frame', self),
          ),
          h(
            'div',
            { class: 'speaker-active-container' },
            // The large video shows whoever was heard last (the bot itself until someone talks).
            showsSignal(ui.meeting, 'active_speaker') && active
              ? videoFrame('speaker-active-container__video-frame', active.name, {
                  'data-participant': active.id,
                })
              : videoFrame('speaker-active-container__video-frame', self),
          ),
        ),
        ui.meeting.traps.participantsPanelOpen && participantsPane(people),
        chat.attach(),
      ),
      ui.notice && h('div', { role: 'alert', class: 'notice' }, ui.notice),
      footer(),
      ui.leaveMenu && leaveMenu(),
      ui.state === 'admitted' && joinAudioDialog(),
    ),
  );
}

/** The speaking indicators: the speaker bar's `--active` tile now, and the large video's person. */
function showLevel(participantId, level) {
  if (ui.state !== 'in_call' || !showsSignal(ui.meeting, 'active_speaker')) return;
  const speaking = level > SPEAKING_THRESHOLD;
  const tile = document.querySelector(
    `.speaker-bar-container__video-frame[data-participant="${participantId}"]`,
  );
  if (speaking) {
    activeUntil.set(participantId, performance.now() + ACTIVE_HANGOVER_MS);
    tile?.classList.add('speaker-bar-container__video-frame--active');
    if (ui.activeSpeaker !== participantId) {
      ui.activeSpeaker = participantId;
      renderCall();
    }
  } else if ((activeUntil.get(participantId) ?? 0) <= performance.now()) {
    tile?.classList.remove('speaker-bar-container__video-frame--active');
  }
}

// ---- chat ----

/**
 * The chat panel's list: each message a `.chat-item-container`; a run of one sender's messages has
 * one header (`.chat-item__sender` with `data-name`, "to Everyone", the clock time) on its first;
 * every message is a `.new-chat-message__container` row whose aria-label says it all ("Alice to
 * Everyone, 9:05 AM, hello"; the page's own are "You to Everyone, …") around a
 * `.new-chat-message__text-box` (`--self` on the page's own). Only the last rows are in the DOM.
 */
function drawChat(panel) {
  const list = panel.element.querySelector('.chat-container__chat-list');
  const rows = [];
  for (let index = Math.max(0, ui.chat.length - CHAT_ROWS_IN_VIEW); index < ui.chat.length; index += 1) {
    const message = ui.chat[index];
    const previous = ui.chat[index - 1];
    const sender = message.mine ? t('You') : message.sender;
    const startsRun =
      !previous || previous.mine !== message.mine || (!message.mine && previous.sender !== message.sender);
    const time = panel.clockTime(message.at);
    rows.push(
      h(
        'div',
        { class: 'chat-item-container', 'data-id': String(message.id) },
        startsRun &&
          h(
            'div',
            { class: 'new-chat-item__chat-info' },
            h('span', { class: 'chat-item__sender', 'data-name': sender }, sender),
            h('span', { class: 'chat-item__to' }, t('to')),
            h('span', { class: 'chat-item__receiver' }, t('Everyone')),
            h('span', { class: 'new-chat-item__chat-info-time-stamp' }, time),
          ),
        h(
          'div',
          {
            class: 'new-chat-message__container',
            role: 'row',
            id: `chat-message-content-${index}`,
            'aria-label': t('{0} to {1}, {2}, {3}', sender, t('Everyone'), time, message.text),
          },
          h(
            'div',
            {
              class: message.mine
                ? 'new-chat-message__text-box new-chat-message__text-box--self'
                : 'new-chat-message__text-box',
            },
            h('p', {}, message.text),
          ),
        ),
      ),
    );
  }
  list.replaceChildren(...rows);
  list.scrollTop = list.scrollHeight;
}

/** The panel: the list, and a rich-text (ProseMirror) box whose Enter or send button sends. */
function buildChat(panel) {
  const input = h('div', {
    class: 'tiptap ProseMirror',
    contenteditable: 'true',
    role: 'textbox',
    'aria-label': t('Type message here...'),
    'aria-multiline': 'true',
    translate: 'no',
  });
  const clear = panel.composeBox(input);
  return h(
    'div',
    { class: 'chat-container', role: 'region', 'aria-label': t('Chat') },
    h('div', { class: 'chat-header__title' }, t('Meeting Chat')),
    h('div', { class: 'chat-container__chat-list', role: 'grid', 'aria-label': t('chat message list') }),
    h(
      'div',
      { class: 'chat-container__chat-control' },
      h(
        'div',
        { class: 'chat-rtf-box__editor-outer' },
        h('div', { class: 'chat-rtf-box__editor-wrapper' }, input),
      ),
      button(t('Send'), () => panel.send(clear), { class: 'chat-rtf-box__send', 'aria-label': t('send') }),
    ),
  );
}

const chat = new ChatPanel(ui, { build: buildChat, draw: drawChat });

// ---- after the meeting ----

/** Zoom's end and removal notices: a modal whose title is `.zm-modal-body-title`. */
function endModal(title) {
  document.title = 'Zoom';
  show(
    root,
    h(
      'div',
      { class: 'zm-modal' },
      h(
        'div',
        { class: 'zm-modal-body', role: 'alertdialog', 'aria-modal': 'true' },
        h('div', { class: 'zm-modal-body-title' }, t(title)),
        button(
          t('OK'),
          () => show(root, h('main', { class: 'message' }, h('p', {}, t('Thank you for attending')))),
          {
            class: 'zm-btn zm-btn--primary',
          },
        ),
      ),
    ),
  );
}

function messageScreen(title, { rejoin, extra } = {}) {
  document.title = 'Zoom';
  show(
    root,
    h(
      'main',
      { class: 'message' },
      h('h1', {}, t(title)),
      extra,
      rejoin && button(t('Rejoin'), ask, { class: 'zm-btn--primary' }),
    ),
  );
}

// ---- wiring ----

function render() {
  if (onLanding) return landing();
  if (ui.notFoundReason === 'bad_passcode' && !ui.meeting) return renderForm();
  if (ui.notFoundReason) return invalidMeeting();
  if (!ui.meeting) return undefined;
  if (ui.meeting.traps.zoomSignIn) return signInScreen();
  if (ui.leaveMenu && !showsCall(ui)) ui.leaveMenu = false;
  switch (ui.state) {
    case 'prejoin':
      if (ui.waitingForHost) return waitingScreen(t('Waiting for the host to start this meeting'));
      return renderForm();
    case 'lobby':
      return waitingScreen(t('Please wait, the meeting host will let you in soon.'));
    case 'admitted':
    case 'in_call':
      return renderCall();
    case 'denied':
      return messageScreen('The host has declined your request to join this meeting.');
    case 'timed_out':
      return messageScreen('No one admitted you to this meeting.');
    case 'blocked':
      // The `refusal` setting: Zoom refusing the join, or its captcha check.
      if (ui.refusal === 'verification') {
        return messageScreen('Please verify that you are not a robot', {
          extra: button(t('Check Captcha'), () => {}, { class: 'zm-btn--primary' }),
        });
      }
      return messageScreen('You are unable to join this meeting');
    case 'left':
      return messageScreen('You have left the meeting', { rejoin: true });
    case 'removed':
      return endModal('You have been removed from this meeting by the host');
    case 'ended':
      return endModal('This meeting has been ended by host');
  }
}

function announce(text) {
  ui.notice = text;
  clearTimeout(ui.noticeTimer);
  ui.noticeTimer = setTimeout(() => {
    ui.notice = null;
    document.querySelector('.notice')?.remove();
  }, 4000);
}

/** Opens (or reopens, with another passcode) the page's session with the simulator. */
function openSession(passcode) {
  ui.session?.events?.close();
  ui.passcode = passcode;
  connectMeetingPage(ui, {
    platform: 'zoom',
    id: meetingId,
    passcode,
    showLevel,
    render,
    notFound: (data) => {
      if (data.reason === 'bad_passcode') {
        // The form asks for the passcode; one typed in that was refused says so.
        ui.passcodeWrong = ui.needsPasscode && ui.askWhenFound;
        ui.needsPasscode = true;
        ui.askWhenFound = false;
        ui.notFoundReason = 'bad_passcode';
        ui.meeting = null;
        return render();
      }
      ui.notFoundReason = data.reason;
      return render();
    },
    found: () => {
      ui.notFoundReason = null;
      ui.passcodeWrong = false;
      if (ui.askWhenFound) {
        ui.askWhenFound = false;
        ui.needsPasscode = false;
        queueMicrotask(requestJoin);
      }
    },
    stateChanging: (state) => {
      if (state !== 'in_call') activeUntil.clear();
    },
    chat: () => chat.received(),
    participants: (data) => {
      const joined = data.present.filter((id) => !ui.present.includes(id));
      const wasInCall = ui.state === 'in_call';
      ui.present = data.present;
      if (ui.activeSpeaker && !ui.present.includes(ui.activeSpeaker)) ui.activeSpeaker = null;
      // A notice in the call that is neither a removal nor an end: bots misread these.
      if (wasInCall && joined.length > 0) {
        const names = joined.map((id) => ui.meeting.participants.find((p) => p.id === id)?.name);
        announce(t('{0} joined the meeting', names.join(', ')));
      }
      if (showsCall(ui)) renderCall();
    },
  });
}

function start() {
  if (onLanding) return landing();
  show(root, h('main', { class: 'message' }, h('p', {}, 'Loading…')));
  if (!/^[0-9]+$/.test(meetingId)) {
    ui.notFoundReason = 'unknown';
    return invalidMeeting();
  }
  openSession(linkPasscode);
}

start();
