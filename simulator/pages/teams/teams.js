// A look-alike of the Microsoft Teams web (light) meeting client, reproducing what the real one
// shows a bot: data-tid landmarks, texts and traps from docs/platform-landmarks.md.

import { ChatPanel } from '../common/chat.js';
import { dialog, h, show } from '../common/dom.js';
import { pageLanguage, translator } from '../common/language.js';
import {
  connectMeetingPage,
  meetingPageState,
  presentParticipants,
  showsCall,
} from '../common/meeting-page.js';
import { showsSignal } from '../common/speaking.js';
import { liveCaptions } from './captions.js';
import { GERMAN } from './teams-de.js';

const SPEAKING_THRESHOLD = 0.02;
const app = document.getElementById('app');
const params = new URLSearchParams(location.search);
// Two URL shapes: /meet/<id>?p=<passcode>, and the light client's launch URL a redirect leads to.
const launched = location.pathname.startsWith('/light-meetings/launch');
const meetingId = launched
  ? (params.get('meetingCode') ?? '')
  : decodeURIComponent(location.pathname.split('/')[2] ?? '');
const passcode = params.get('p') ?? undefined;
const reloadedKey = `sim-teams-reloaded:${meetingId}`;
const fullReloadedKey = `sim-teams-full-reloaded:${meetingId}`;
// The full experience (lightExperience=false) starts over at the launcher; the light one skips it.
const lightLaunch = launched && params.get('lightExperience') !== 'false';

const ui = meetingPageState({
  computerAudio: true,
  continued: lightLaunch,
  found: null,
  notice: null,
  /** The call bar's View menu (layouts, and turning incoming video off). */
  viewOpen: false,
});
// Teams follows the browser's language (navigator.language, as the context's locale and its
// Accept-Language set it) over the account's (the `locale` trap).
const captions = liveCaptions(ui);
const browserLanguage = (navigator.languages?.[0] ?? navigator.language ?? '').toLowerCase();
const t = translator(GERMAN, () => pageLanguage(ui.meeting?.traps, browserLanguage.startsWith('en')));

function button(label, onclick, extra = {}) {
  return h('button', { type: 'button', onclick, ...extra }, label);
}

/** A wrong passcode fails to connect; an unknown meeting id reads as a bad URL (one sentence). */
function errorScreen() {
  const badPasscode = ui.notFoundReason === 'bad_passcode';
  show(
    app,
    h(
      'main',
      { class: 'message' },
      badPasscode
        ? [h('h1', {}, "Sorry, we couldn't connect you"), h('p', {}, 'Check the meeting link and try again.')]
        : h('p', {}, 'Looks like the meeting URL is incorrect. Please check the URL and try again.'),
    ),
  );
}

/**
 * With the aria-label trap each button shows a title and a description line (so its text is not
 * its name) and is named by its aria-label, which need not repeat the title.
 */
function launcherButton(title, description, ariaLabel, onclick, extra) {
  if (!ui.meeting?.traps.launcherAriaLabels) return button(title, onclick, extra);
  return button(
    [
      h('span', { class: 'launcher-title' }, title),
      h('span', { class: 'launcher-description' }, description),
    ],
    onclick,
    { ...extra, 'aria-label': ariaLabel },
  );
}

function launcher() {
  show(
    app,
    h(
      'main',
      { class: 'launcher' },
      h('h1', {}, t('How do you want to join your Teams meeting?')),
      launcherButton(
        t('Join on the Teams app'),
        t('Use the desktop app for the best experience'),
        t('Join meeting in the Teams app'),
        () => {},
        {
          class: 'secondary',
        },
      ),
      launcherButton(
        t('Continue on this browser'),
        t('No download or installation required.'),
        t('Join meeting from this browser'),
        onContinue,
        { class: 'primary', 'data-tid': 'joinOnWeb' },
      ),
    ),
  );
}

function onContinue() {
  ui.continued = true;
  if (ui.found === false) return errorScreen();
  render();
  // The trap: the light client gives way to the full one, reloading without the light experience.
  if (ui.meeting?.traps.fullExperienceReload && !sessionStorage.getItem(fullReloadedKey)) {
    sessionStorage.setItem(fullReloadedKey, '1');
    setTimeout(() => {
      const next = new URLSearchParams({ meetingCode: meetingId, anon: 'true', lightExperience: 'false' });
      if (passcode) next.set('p', passcode);
      location.replace(`/light-meetings/launch?${next}`);
    }, 1500);
  }
  // The trap: a moment after the form shows, the page reloads through the light client's URL.
  if (ui.meeting?.traps.midJoinReload && !sessionStorage.getItem(reloadedKey)) {
    sessionStorage.setItem(reloadedKey, '1');
    setTimeout(() => {
      const next = new URLSearchParams({ meetingCode: meetingId, anon: 'true', lightExperience: 'true' });
      if (passcode) next.set('p', passcode);
      location.replace(`/light-meetings/launch?${next}`);
    }, 1500);
  }
}

// ---- pre-join and lobby (one screen; the lobby keeps the form with Join disabled) ----

function toggleSwitch(kind) {
  if (ui.meeting.traps.toggleInputs) return toggleInput(kind);
  const on = kind === 'mic' ? ui.micOn && ui.computerAudio : ui.cameraOn;
  return h('div', {
    role: 'switch',
    tabindex: '0',
    class: `switch ${on ? 'on' : ''}`,
    'data-tid': kind === 'mic' ? 'toggle-mute' : 'toggle-video',
    'aria-label': t(kind === 'mic' ? 'Microphone' : 'Camera'),
    'aria-checked': String(on),
    'aria-disabled': kind === 'mic' && !ui.computerAudio ? 'true' : undefined,
    onclick: () => {
      if (ui.state === 'lobby') return;
      if (kind === 'mic') {
        if (!ui.computerAudio) return;
        ui.micOn = !ui.micOn;
      } else {
        ui.cameraOn = !ui.cameraOn;
      }
      reportToggles();
      renderPreJoin();
    },
  });
}

/**
 * The trap: a Fluent switch. The data-tid sits on a transparent checkbox input laid over the drawn
 * track; its state is the input's `checked`, with no aria-checked.
 */
function toggleInput(kind) {
  const on = kind === 'mic' ? ui.micOn && ui.computerAudio : ui.cameraOn;
  const input = h('input', {
    type: 'checkbox',
    role: 'switch',
    class: 'fui-Switch__input',
    'data-tid': kind === 'mic' ? 'toggle-mute' : 'toggle-video',
    'aria-label': t(kind === 'mic' ? 'Microphone' : 'Camera'),
    disabled: ui.state === 'lobby' || (kind === 'mic' && !ui.computerAudio),
    onchange: (event) => {
      if (kind === 'mic') ui.micOn = event.target.checked;
      else ui.cameraOn = event.target.checked;
      reportToggles();
      renderPreJoin();
    },
  });
  input.checked = on;
  return h(
    'div',
    { class: 'fui-Switch' },
    input,
    h('div', { class: `fui-Switch__indicator switch ${on ? 'on' : ''}`, 'aria-hidden': 'true' }),
  );
}

function reportToggles() {
  ui.session.act({ type: 'toggles', micOn: ui.micOn && ui.computerAudio, cameraOn: ui.cameraOn });
}

function audioOption(label, value) {
  const checked = ui.computerAudio === value;
  return h(
    'div',
    {
      role: 'radio',
      tabindex: '0',
      'aria-checked': String(checked),
      class: `audio-option ${checked ? 'checked' : ''}`,
      onclick: () => {
        if (ui.state === 'lobby') return;
        ui.computerAudio = value;
        reportToggles();
        renderPreJoin();
      },
    },
    label,
  );
}

function renderPreJoin() {
  const inLobby = ui.state === 'lobby';
  const input = h('input', {
    type: 'text',
    'data-tid': 'prejoin-display-name-input',
    placeholder: t('Type your name'),
    'aria-label': t('Type your name'),
    autocomplete: 'off',
    disabled: inLobby,
    oninput: (event) => {
      ui.name = event.target.value;
      join.disabled = ui.name.trim().length === 0;
    },
  });
  input.value = ui.name;
  const join = button(t('Join now'), onJoinNow, { 'data-tid': 'prejoin-join-button', class: 'primary' });
  join.disabled = inLobby || ui.name.trim().length === 0;
  show(
    app,
    h(
      'main',
      { class: 'prejoin' },
      h('h1', {}, t('Choose your audio and video settings for')),
      h('h2', {}, t('Meeting now')),
      h(
        'div',
        { class: 'prejoin-body' },
        h(
          'div',
          { class: 'preview' },
          h('div', { class: 'preview-video' }, ui.cameraOn ? '' : t('Your camera is turned off')),
          h('div', { class: 'preview-switches' }, toggleSwitch('video'), toggleSwitch('mic')),
        ),
        h(
          'div',
          { class: 'prejoin-side' },
          // Signed in: the account's name, no field (they join under it).
          ui.signedInAs === null ? input : h('p', { class: 'account-name' }, ui.signedInAs),
          h(
            'div',
            { role: 'radiogroup', 'aria-label': t('Audio options') },
            audioOption(t('Computer audio'), true),
            audioOption(t("Don't use audio"), false),
          ),
          inLobby &&
            h(
              'div',
              { class: 'lobby-text', 'aria-live': 'polite' },
              h('p', {}, t('Someone will let you in shortly')),
            ),
          join,
          inLobby &&
            ui.meeting.traps.lobbyCancel &&
            button(t('Cancel'), () => ui.session.act({ type: 'leave', via: 'lobby_cancel' }), {
              'data-tid': 'prejoin-cancel-button',
            }),
        ),
      ),
      ui.meeting.traps.sharedControls && inLobby && callControls(),
    ),
  );
}

function onJoinNow() {
  const micOn = ui.micOn && ui.computerAudio;
  if (ui.meeting.traps.noAudioVideoModal && !micOn && !ui.cameraOn) {
    app.append(noAudioVideoModal());
    return;
  }
  ask();
}

function ask() {
  ui.session.act({
    type: 'ask',
    name: ui.name.trim(),
    micOn: ui.micOn && ui.computerAudio,
    cameraOn: ui.cameraOn,
  });
}

function noAudioVideoModal() {
  const modal = dialog({
    titleId: 'no-av-title',
    title: t("Are you sure you don't want audio or video?"),
    text: t("Others won't be able to see or hear you."),
    actions: [
      button(t('Cancel'), () => modal.remove()),
      button(
        t('Continue without audio or video'),
        () => {
          modal.remove();
          ask();
        },
        { class: 'primary' },
      ),
    ],
  });
  return modal;
}

// ---- in the call ----

function callControls() {
  const count = ui.present.length + 1;
  return h(
    'div',
    { class: 'calling-controls', role: 'toolbar', 'aria-label': t('Meeting controls') },
    button(t('Chat'), () => chat.toggle(renderCall), {
      id: 'chat-button',
      'data-tid': 'chat-button',
      'aria-label': t('Chat'),
      'aria-pressed': String(chat.open),
    }),
    button(t('People {0}', count), () => {}, {
      'data-tid': 'roster-button',
      'aria-label': t('People, {0} participants', count),
    }),
    button(t('Raise'), () => {}, { 'data-tid': 'raise-hand-button', 'aria-label': t('Raise your hand') }),
    button(
      t('View'),
      () => {
        ui.viewOpen = !ui.viewOpen;
        render();
      },
      {
        id: 'view-mode-button',
        'aria-label': t('View'),
        'aria-haspopup': 'menu',
        'aria-expanded': String(ui.viewOpen),
      },
    ),
    button(t('More'), () => {}, { id: 'callingButtons-showMoreBtn', 'aria-label': t('More') }),
    button(t(ui.cameraOn ? 'Camera' : 'Camera off'), toggleInCall('camera'), {
      id: 'video-button',
      'aria-label': ui.meeting.traps.videoToggleLabels
        ? t(ui.cameraOn ? 'Turn off video' : 'Turn on video')
        : t(ui.cameraOn ? 'Turn camera off' : 'Turn camera on'),
    }),
    button(t(ui.micOn ? 'Mic' : 'Mic off'), toggleInCall('mic'), {
      id: 'microphone-button',
      'data-tid': 'microphone-button',
      'aria-label': t(ui.micOn ? 'Mute mic' : 'Unmute mic'),
    }),
    button(t('Leave'), onHangUp, {
      id: 'hangup-button',
      'data-tid': 'hangup-main-btn',
      'aria-label': t('Leave'),
      class: 'hangup',
    }),
  );
}

// Escape closes an open menu, as on the real page.
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && ui.viewOpen) {
    ui.viewOpen = false;
    render();
  }
});

/** The View menu: layouts, and "Turn off incoming video", which stops others' cameras (not shared content). */
function viewMenu() {
  const item = (label, onclick, extra = {}) =>
    h('div', { role: 'menuitem', tabindex: '-1', onclick, ...extra }, label);
  const incomingLabel = t(ui.incomingVideo ? 'Turn off incoming video' : 'Turn on incoming video');
  return h(
    'div',
    { class: 'view-menu', role: 'menu', 'aria-label': t('View options') },
    item(t('Gallery'), () => {}, { 'aria-checked': 'true', role: 'menuitemradio' }),
    item(t('Speaker'), () => {}, { 'aria-checked': 'false', role: 'menuitemradio' }),
    item(
      incomingLabel,
      () => {
        ui.incomingVideo = !ui.incomingVideo;
        ui.viewOpen = false;
        render();
      },
      { id: 'incoming-video-button', 'aria-label': incomingLabel },
    ),
  );
}

function toggleInCall(kind) {
  return () => {
    if (kind === 'mic') ui.micOn = !ui.micOn;
    else ui.cameraOn = !ui.cameraOn;
    reportToggles();
    render();
  };
}

function onHangUp() {
  if (!ui.meeting.traps.leaveConfirmation || ui.state === 'lobby') {
    ui.session.act({ type: 'leave', via: 'leave_button' });
    return;
  }
  const confirm = dialog({
    title: t('Leave the meeting?'),
    actions: [
      button(t('Cancel'), () => confirm.remove()),
      button(t('Leave'), () => ui.session.act({ type: 'leave', via: 'leave_button' }), { class: 'primary' }),
    ],
  });
  app.append(confirm);
}

function videoTile(name, extra = {}) {
  return h(
    'div',
    { class: 'video-tile', 'data-stream-type': 'Video', 'data-tid': name, 'aria-label': name, ...extra },
    h('div', { 'data-tid': 'voice-level-stream-outline', class: 'voice-level-stream-outline' }),
    h('div', { class: 'tile-avatar', 'aria-hidden': 'true' }, name.slice(0, 1).toUpperCase()),
    h('span', { class: 'tile-name' }, name),
  );
}

function renderCall() {
  const people = presentParticipants(ui);
  show(
    app,
    h(
      'main',
      { class: 'call' },
      h(
        'div',
        { class: 'stage' },
        ...people.map((p) => videoTile(p.name, { 'data-participant': p.id })),
        videoTile(ui.name.trim(), { class: 'video-tile self' }),
      ),
      people.length === 0 && h('div', { class: 'alone' }, t("You're the only one here")),
      ui.meeting.traps.liveCaptions && captions.region(),
      ui.notice && h('div', { role: 'alert', class: 'notice' }, ui.notice),
      chat.attach(),
      callControls(),
      ui.viewOpen && viewMenu(),
    ),
  );
}

// ---- chat ----

/**
 * The meeting chat pane: each message a `data-tid="chat-pane-message"` whose `data-mid` is its
 * send time in epoch milliseconds, with the author (`data-tid="message-author-name"`), a
 * `<time datetime>` and the text in `#content-<mid>`. The page's own messages carry no author line.
 */
function drawChat(panel) {
  const list = panel.element.querySelector('[data-tid="message-pane-list-runway"]');
  list.replaceChildren(
    ...ui.chat.map((message) => {
      const mid = String(Date.parse(message.at));
      return h(
        'div',
        { 'data-tid': 'chat-pane-item', class: message.mine ? 'chat-item mine' : 'chat-item' },
        h(
          'div',
          { 'data-tid': 'chat-pane-message', 'data-mid': mid, class: 'fui-ChatMessage' },
          !message.mine &&
            h('span', { 'data-tid': 'message-author-name', id: `author-${mid}` }, message.sender),
          h('time', { id: `timestamp-${mid}`, datetime: message.at }, panel.clockTime(message.at)),
          h('div', { id: `content-${mid}`, class: 'chat-content' }, message.text),
        ),
      );
    }),
  );
}

function buildChat(panel) {
  const newMessageInput = ui.meeting.traps.chatNewMessageInput;
  const input = h('div', {
    role: 'textbox',
    contenteditable: 'true',
    'aria-label': t(newMessageInput ? 'Type a new message' : 'Type a message'),
    ...(newMessageInput ? {} : { 'data-tid': 'ckeditor' }),
    'aria-multiline': 'true',
    class: 'chat-input',
  });
  const clear = panel.composeBox(input);
  return h(
    'div',
    { class: 'chat-pane', 'data-tid': 'chat-pane', role: 'complementary', 'aria-label': t('Chat') },
    h('h2', {}, t('Meeting chat')),
    h('div', { 'data-tid': 'message-pane-list-runway', class: 'chat-runway' }),
    h(
      'div',
      { class: 'chat-compose' },
      input,
      button(t('Send'), () => panel.send(clear), {
        'data-tid': 'newMessageCommands-send',
        'aria-label': t('Send'),
      }),
    ),
  );
}

const chat = new ChatPanel(ui, { build: buildChat, draw: drawChat });

function showLevel(participantId, level) {
  const tile = document.querySelector(`.video-tile[data-participant="${participantId}"]`);
  const outline = tile?.querySelector('[data-tid="voice-level-stream-outline"]');
  if (!outline) return;
  const speaking = level > SPEAKING_THRESHOLD;
  // Field reports say the real page's vdi-frame-occlusion never changed (`outline_class` hidden).
  if (showsSignal(ui.meeting, 'outline_class')) outline.classList.toggle('vdi-frame-occlusion', speaking);
  if (showsSignal(ui.meeting, 'outline_style')) {
    outline.style.opacity = speaking ? '1' : '0';
    outline.style.borderWidth = speaking ? `${2 + Math.round(level * 4)}px` : '0px';
  }
}

// ---- the sign-in family (the signIn trap): each screen ends an anonymous join ----

const SIGN_IN_SCREENS = {
  verify_info: () => [
    h('h1', {}, t('We need to verify your info before you can join')),
    button(t('Sign in'), () => {}, { class: 'primary' }),
  ],
  sign_in_to_continue: () => [
    h('h1', {}, t('Sign in to continue')),
    button(t('Sign in'), () => {}, { class: 'primary' }),
  ],
  // The message without the login form's input, so the text alone has to be recognised.
  enter_email: () => [
    h('h1', {}, 'Microsoft'),
    h('p', { role: 'alert' }, t('Enter your email, phone, or Skype.')),
    h('input', { type: 'email', name: 'email', 'aria-label': t('Email') }),
    button(t('Next'), () => {}, { class: 'primary' }),
  ],
  pick_account: () => [
    h('h1', {}, t('Pick an account')),
    h('div', { role: 'listbox' }, h('div', { role: 'option', tabindex: '0' }, t('Use another account'))),
  ],
  // Microsoft's login form: none of the family's texts, only its input.
  login_form: () => [
    h('h1', {}, t('Sign in')),
    h('input', {
      type: 'email',
      name: 'loginfmt',
      placeholder: t('Email, phone, or Skype'),
      'aria-label': t('Email, phone, or Skype'),
    }),
    h('p', {}, t('No account? Create one!')),
    button(t('Next'), () => {}, { class: 'primary' }),
  ],
  real_person: () => [
    h('h1', {}, t('Verify you’re a real person')),
    h('div', { class: 'challenge' }, t('Solve the puzzle to continue')),
  ],
};

function signInScreen(which) {
  show(app, h('main', { class: 'message sign-in' }, ...SIGN_IN_SCREENS[which]()));
}

// ---- after the call ----

function retryScreen(title, detail, { rejoin } = {}) {
  show(
    app,
    h(
      'main',
      { class: 'message' },
      h('h1', { id: 'calling-retry-screen-title' }, t(title)),
      detail && h('p', {}, t(detail)),
      h(
        'div',
        { class: 'actions' },
        rejoin && button(t('Rejoin'), ask, { 'data-tid': 'calling-retry-rejoinbutton' }),
        button(
          t('Dismiss'),
          () => show(app, h('main', { class: 'message' }, h('p', {}, t('Thanks for joining!')))),
          {
            'data-tid': 'calling-retry-cancelbutton',
          },
        ),
      ),
    ),
  );
}

// ---- wiring ----

function render() {
  if (!ui.continued) return launcher();
  if (!ui.meeting) return undefined;
  if (ui.meeting.traps.signIn) return signInScreen(ui.meeting.traps.signIn);
  switch (ui.state) {
    case 'prejoin':
    case 'lobby':
      return renderPreJoin();
    case 'admitted':
    case 'in_call':
      return renderCall();
    case 'denied':
      return retryScreen(
        'Sorry, but you were denied access to the meeting.',
        'Your request to join was declined',
      );
    case 'timed_out':
      return retryScreen('Sorry, no one let you in', 'No one responded to your request to join.');
    case 'blocked':
      // The `refusal` setting: the anti-bot refusal, or the challenge for anonymous guests.
      if (ui.refusal === 'bot_detection')
        return retryScreen("Sorry, we couldn't connect you", 'Please try again.');
      if (ui.refusal === 'verification') return signInScreen('real_person');
      return retryScreen('We need to verify your info before you can join', 'Sign in to join this meeting.');
    case 'left':
      return retryScreen('You left the meeting', null, { rejoin: true });
    case 'removed':
      return retryScreen("You've been removed from this meeting", null, { rejoin: true });
    case 'ended':
      return retryScreen('Meeting ended', 'Sorry, this meeting has ended.');
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

function start() {
  show(app, h('main', { class: 'message' }, h('p', {}, 'Loading…')));
  if (!/^[0-9]+$/.test(meetingId)) {
    ui.found = false;
    return ui.continued ? errorScreen() : launcher();
  }
  connectMeetingPage(ui, {
    platform: 'teams',
    id: meetingId,
    passcode,
    showLevel,
    render,
    notFound: (data) => {
      ui.found = false;
      ui.notFoundReason = data.reason;
      return ui.continued ? errorScreen() : launcher();
    },
    found: () => {
      ui.found = true;
    },
    stateChanging: (state, previous) => {
      if (previous === 'in_call' && state !== 'in_call') captions.clear();
    },
    utterance: (event) => {
      if (ui.meeting.traps.liveCaptions) captions.heard(event);
    },
    chat: () => chat.received(),
    participants: (data) => {
      const joined = data.present.filter((id) => !ui.present.includes(id));
      const wasInCall = ui.state === 'in_call';
      ui.present = data.present;
      // A generic role="alert" in the call that is not a removal: bots misread these.
      if (wasInCall && joined.length > 0) {
        const names = joined.map((id) => ui.meeting.participants.find((p) => p.id === id)?.name);
        announce(t('{0} joined the meeting', names.join(', ')));
      }
      if (showsCall(ui)) renderCall();
    },
  });
  launcher();
}

start();
