// A look-alike of Google Meet's web client, reproducing what the real one shows a bot:
// the aria-labels, texts and data-* attributes from docs/platform-landmarks.md, and its traps.

import { ChatPanel } from '../common/chat.js';
import { dialog, generatedClassName, h, show } from '../common/dom.js';
import { pageLanguage, translator } from '../common/language.js';
import {
  connectMeetingPage,
  meetingPageState,
  presentParticipants,
  showsCall,
} from '../common/meeting-page.js';
import { showsSignal } from '../common/speaking.js';
import { GERMAN } from './meet-de.js';

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
const SPEAKING_THRESHOLD = 0.02;
const app = document.getElementById('app');
const code = decodeURIComponent(location.pathname.slice(1));
// Meet's class names are generated and change between releases; so do ours, per page load.
const speakingClass = generatedClassName();
// Meet's UI follows the account/browser language unless the URL says `hl=en` (the `locale` trap).
const asksForEnglish = (new URLSearchParams(location.search).get('hl') ?? '').toLowerCase().startsWith('en');

const ui = meetingPageState({
  peopleOpen: false,
  interstitialStep: 0,
  toolbarTimer: undefined,
  toolbarHidden: false,
  /** The "More options" menu, and the Settings dialog it opens (its tab). */
  moreOpen: false,
  settingsTab: null,
});
const t = translator(GERMAN, () => pageLanguage(ui.meeting?.traps, asksForEnglish));

function button(label, onclick, extra = {}) {
  return h('button', { type: 'button', onclick, ...extra }, h('span', {}, label));
}

function homeButton() {
  return button(t('Return to home screen'), () => {
    if (ui.state === 'lobby') ui.session.act({ type: 'leave', via: 'return_home' });
    location.href = '/';
  });
}

function ask() {
  return ui.session.act({ type: 'ask', name: ui.name.trim(), micOn: ui.micOn, cameraOn: ui.cameraOn });
}

function messageScreen(title, detail, ...actions) {
  show(
    app,
    h(
      'main',
      { class: 'message' },
      h('h1', {}, title),
      detail && h('p', {}, detail),
      h('div', { class: 'actions' }, ...actions),
    ),
  );
}

/**
 * Google's answer to traffic it takes for automation (the `refusal: verification` setting): its
 * "unusual traffic" page with a reCAPTCHA-style checkbox, instead of the meeting.
 */
function renderUnusualTraffic() {
  show(
    app,
    h(
      'main',
      { class: 'message' },
      h('h1', {}, t('Our systems have detected unusual traffic from your computer network.')),
      h('p', {}, t("This page checks to see if it's really you sending the requests, and not a robot.")),
      h('label', { class: 'challenge' }, h('input', { type: 'checkbox' }), t("I'm not a robot")),
    ),
  );
}

// ---- not found ----

function renderNotFound(reason) {
  if (!MEET_CODE.test(code)) {
    messageScreen('Invalid video call name.', null, homeButton());
  } else if (reason === 'ended') {
    messageScreen('Your meeting code has expired', 'Start or join another meeting.', homeButton());
  } else {
    messageScreen(
      'Check your meeting code',
      'Make sure you entered the correct meeting code in the URL, for example: https://meet.google.com/xxx-yyyy-zzz',
      homeButton(),
    );
  }
}

// ---- pre-join and lobby ----

/** Pre-join toggles are div role=button; the call's toolbar uses real buttons. */
function preJoinToggle(kind) {
  const on = kind === 'mic' ? ui.micOn : ui.cameraOn;
  const device = kind === 'mic' ? 'microphone' : 'camera';
  return h('div', {
    role: 'button',
    tabindex: '0',
    class: `toggle ${on ? '' : 'off'}`,
    'aria-label': t(`${on ? 'Turn off' : 'Turn on'} ${device}`),
    'data-is-muted': String(!on),
    onclick: () => {
      if (kind === 'mic') ui.micOn = !ui.micOn;
      else ui.cameraOn = !ui.cameraOn;
      ui.session.act({ type: 'toggles', micOn: ui.micOn, cameraOn: ui.cameraOn });
      rerenderToggles();
    },
  });
}

function rerenderToggles() {
  const holder = document.querySelector('.preview-toggles');
  if (holder) holder.replaceChildren(preJoinToggle('mic'), preJoinToggle('camera'));
}

function selfPreview() {
  const shared = ui.meeting.traps.sharedControls && ui.state === 'lobby';
  return h(
    'div',
    { class: 'preview', 'data-participant-id': shared ? ui.meeting.selfDeviceId : undefined },
    h('div', { class: 'preview-video' }, t(ui.cameraOn ? 'Camera is starting' : 'Camera is off')),
    h('div', { class: 'preview-toggles' }, preJoinToggle('mic'), preJoinToggle('camera')),
  );
}

/** Pre-join and lobby share one layout: the self preview beside a panel, and what lies over it. */
function showJoinScreen(panelProps, panel, over) {
  show(app, h('main', { class: 'prejoin' }, selfPreview(), h('section', panelProps, ...panel)), over);
}

function whoIsHere() {
  const names = ui.present.map((id) => ui.meeting.participants.find((p) => p.id === id)?.name);
  if (names.length === 0) return t('No one else is here');
  if (names.length === 1) return t('{0} is in this call', names[0]);
  return t('{0} and {1} are in this call', names.slice(0, -1).join(', '), names.at(-1));
}

/** The page anonymous visitors get on a sign-in-only meeting: Google's own sign-in, in the page. */
function renderSignIn() {
  show(
    app,
    h(
      'main',
      { class: 'message sign-in' },
      h('h1', {}, t('Sign in')),
      h('p', {}, t('to continue to Google Meet')),
      h('input', { type: 'email', 'aria-label': t('Email or phone'), autocomplete: 'off' }),
      h(
        'div',
        { class: 'actions' },
        button(t('Forgot email?'), () => {}),
        button(t('Next'), () => {}),
      ),
    ),
  );
}

function renderPreJoin() {
  if (ui.meeting.traps.signInScreen) return renderSignIn();
  const open = ui.meeting.admission === 'open';
  const input = h('input', {
    type: 'text',
    'aria-label': t('Your name'),
    placeholder: t('Your name'),
    value: ui.name,
    autocomplete: 'off',
    oninput: (event) => {
      ui.name = event.target.value;
      join.disabled = ui.name.trim().length === 0;
    },
  });
  input.value = ui.name;
  const label = ui.meeting.traps.joinButtonLabel ?? (open ? 'Join now' : 'Ask to join');
  const join = button(t(label), () => ask());
  join.disabled = ui.name.trim().length === 0;
  const signedIn = ui.signedInAs !== null;
  showJoinScreen(
    { class: 'join-panel' },
    [
      // Anonymous visitors always see a way to sign in; it is not the sign-in screen. A signed-in
      // user sees their account instead, and no name field: they join under the account's name.
      signedIn
        ? h('div', { class: 'account' }, h('span', { class: 'account-name' }, ui.signedInAs))
        : h(
            'div',
            { class: 'account' },
            button(t('Sign in'), () => {}),
          ),
      h('h1', {}, signedIn ? t('Ready to join?') : t("What's your name?")),
      !signedIn && input,
      h('div', { class: 'join-actions' }, join),
      h('p', { class: 'who-is-here' }, whoIsHere()),
    ],
    interstitial(),
  );
}

/** The trap: dialogs over the form that intercept clicks until answered. */
function interstitial() {
  if (ui.interstitialStep === 2) {
    return dialog({
      titleId: 'av-title',
      title: t('Do you want people to see and hear you in the meeting?'),
      text: t('You can still turn off your microphone and camera anytime in the meeting'),
      actions: [
        button(t('Continue without microphone and camera'), () => {
          ui.micOn = false;
          ui.cameraOn = false;
          ui.session.act({ type: 'toggles', micOn: false, cameraOn: false });
          ui.interstitialStep = 1;
          renderPreJoin();
        }),
        button(t('Allow microphone and camera'), () => {
          ui.interstitialStep = 1;
          renderPreJoin();
        }),
      ],
    });
  }
  if (ui.interstitialStep === 1) {
    return dialog({
      title: t('Others may see your video differently'),
      text: t('Your video is shown as others will see it.'),
      actions: [
        button(t('Got it'), () => {
          ui.interstitialStep = 0;
          renderPreJoin();
        }),
      ],
    });
  }
  return null;
}

function renderLobby() {
  const waitingForHost = ui.meeting.admission === 'host';
  const variant = ui.meeting.traps.lobbyText;
  const texts = variant
    ? [h('h1', {}, t(variant))]
    : [
        h('h1', {}, t('Asking to be let in…')),
        h('p', {}, t('You’ll join the call when someone lets you in')),
        waitingForHost && h('p', {}, t('Please wait until a meeting host brings you into the call')),
      ];
  showJoinScreen(
    { class: 'join-panel', 'aria-live': 'polite' },
    [...texts, h('div', { class: 'join-actions' }, homeButton())],
    ui.meeting.traps.sharedControls && toolbar(),
  );
}

function renderRefused(title) {
  messageScreen(
    t(title),
    t('You left the meeting'),
    button(t('Ask to join again'), () => ask()),
    homeButton(),
  );
}

// ---- in the call ----

function toolbarButton(label, icon, onclick, extra = {}) {
  return h(
    'button',
    { type: 'button', 'aria-label': label, 'data-tooltip': label, onclick, ...extra },
    h('i', { class: 'google-material-icons', 'aria-hidden': 'true' }, icon),
  );
}

function toolbar() {
  const count = ui.present.length + 1;
  const people = toolbarButton(t('People - {0} joined', count), 'people', () => {
    ui.peopleOpen = !ui.peopleOpen;
    renderCall();
  });
  people.append(h('div', { class: 'avatar-count', 'data-avatar-count': String(count) }, String(count)));
  const toggle = (kind) => {
    const on = kind === 'mic' ? ui.micOn : ui.cameraOn;
    const device = kind === 'mic' ? 'microphone' : 'camera';
    return toolbarButton(
      t(`${on ? 'Turn off' : 'Turn on'} ${device}`),
      kind === 'mic' ? (on ? 'mic' : 'mic_off') : on ? 'videocam' : 'videocam_off',
      () => {
        if (kind === 'mic') ui.micOn = !ui.micOn;
        else ui.cameraOn = !ui.cameraOn;
        ui.session.act({ type: 'toggles', micOn: ui.micOn, cameraOn: ui.cameraOn });
        refreshToolbar();
      },
      { 'data-is-muted': String(!on), class: on ? '' : 'off' },
    );
  };
  return h(
    'div',
    {
      class: `toolbar ${ui.toolbarHidden ? 'hidden' : ''}`,
      role: 'region',
      'aria-label': t('Call controls'),
    },
    h(
      'div',
      { class: 'toolbar-left' },
      h('span', { class: 'meeting-code' }, code),
      !ui.incomingVideo && h('span', { class: 'audio-only-note' }, t('Incoming video is set to audio only')),
    ),
    h(
      'div',
      { class: 'toolbar-center' },
      toggle('mic'),
      toggle('camera'),
      toolbarButton(t('Turn on captions'), 'closed_caption'),
      toolbarButton(t('Send a reaction'), 'mood'),
      toolbarButton(t('Raise hand'), 'front_hand'),
      toolbarButton(t('Present now'), 'present_to_all', undefined, { 'data-tooltip': t('Share screen') }),
      toolbarButton(
        t('More options'),
        'more_vert',
        () => {
          ui.moreOpen = !ui.moreOpen;
          renderCall();
        },
        { 'aria-haspopup': 'menu', 'aria-expanded': String(ui.moreOpen) },
      ),
      toolbarButton(t('Leave call'), 'call_end', onLeaveCall, { class: 'leave' }),
    ),
    h(
      'div',
      { class: 'toolbar-right' },
      toolbarButton(t('Meeting details'), 'info'),
      people,
      toolbarButton(t('Chat with everyone'), 'chat', () => chat.toggle(renderCall), {
        'aria-pressed': String(chat.open),
      }),
      toolbarButton(t('Meeting tools'), 'category'),
    ),
  );
}

function refreshToolbar() {
  const current = document.querySelector('.toolbar');
  if (current) current.replaceWith(toolbar());
}

/**
 * A person's name. With the notranslate trap it sits in a `span.notranslate` after the tile's
 * hover labels, which are spans with text too, as on the real page.
 */
function nameParts(name, labels) {
  if (!ui.meeting.traps.notranslateNames) return [h('span', { class: 'name' }, name)];
  return [
    h('div', { class: 'tile-menu' }, ...labels.map((label) => h('span', { class: 'tile-label' }, label))),
    h('span', { class: 'name notranslate' }, name),
  ];
}

function tile(participant) {
  return h(
    'div',
    {
      class: 'tile',
      'data-participant-id': participant.deviceId,
      'data-requested-participant-id': participant.deviceId,
    },
    h('div', { class: 'avatar', 'aria-hidden': 'true' }, participant.name.slice(0, 1).toUpperCase()),
    h('div', { class: 'level', 'data-audio-level': '0' }),
    ...nameParts(participant.name, [
      t('More options for {0}', participant.name),
      t('Pin {0} to your main screen', participant.name),
    ]),
  );
}

function selfTile() {
  return h(
    'div',
    { class: 'tile self', 'data-participant-id': ui.meeting.selfDeviceId, 'data-self-name': ui.name.trim() },
    h('div', { class: 'avatar', 'aria-hidden': 'true' }, ui.name.trim().slice(0, 1).toUpperCase()),
    h('div', { class: 'level', 'data-audio-level': '0' }),
    ...nameParts(t('You'), [t('Turn on your camera')]),
  );
}

/** A People row: named by its aria-label, with a mic-level element whose opacity follows speech. */
function personRow(name, deviceId, suffix) {
  const nameClass = ui.meeting.traps.notranslateNames ? 'notranslate' : undefined;
  return h(
    'div',
    { role: 'listitem', 'aria-label': name, 'data-participant-id': deviceId },
    h('span', { class: nameClass }, name),
    suffix && h('span', {}, suffix),
    h('div', { class: 'mic-level', 'aria-hidden': 'true', style: 'opacity: 0' }),
  );
}

function peoplePanel() {
  const rows = [
    personRow(ui.name.trim(), ui.meeting.selfDeviceId, t('(You)')),
    ...presentParticipants(ui).map((p) => personRow(p.name, p.deviceId)),
  ];
  return h(
    'aside',
    { class: 'people', 'aria-label': t('People') },
    h('h2', {}, t('People')),
    h('div', { role: 'list', 'aria-label': t('Participants') }, rows),
  );
}

// ---- More options: Settings, Video, receive resolution ----

/** The receive resolutions Meet's Video settings offer; "Audio only" stops others' cameras. */
const RECEIVE_RESOLUTIONS = [
  'Auto',
  'High definition (720p)',
  'Standard definition (360p)',
  'Standard definition (360p), one video at a time',
  'Audio only',
];

// Escape closes the open menu or dialog, as on the real page; once the call is over (the meeting
// ended, or the bot removed) there is nothing to redraw: the page keeps its ending screen.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || (!ui.moreOpen && !ui.settingsTab)) return;
  ui.moreOpen = false;
  ui.settingsTab = null;
  if (showsCall(ui)) renderCall();
});

function moreOptionsMenu() {
  const item = (label, icon, onclick) =>
    h(
      'li',
      { role: 'menuitem', tabindex: '-1', onclick },
      h('i', { class: 'google-material-icons', 'aria-hidden': 'true' }, icon),
      h('span', {}, label),
    );
  return h(
    'ul',
    { class: 'more-menu', role: 'menu', 'aria-label': t('Call options') },
    item(t('Change layout'), 'view_quilt'),
    item(t('Full screen'), 'fullscreen'),
    item(t('Settings'), 'settings', () => {
      ui.moreOpen = false;
      ui.settingsTab = 'audio';
      renderCall();
    }),
  );
}

function settingsDialog() {
  const tab = (id, label) =>
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        'aria-label': label,
        'aria-selected': String(ui.settingsTab === id),
        onclick: () => {
          ui.settingsTab = id;
          renderCall();
        },
      },
      h('span', {}, label),
    );
  const current = ui.incomingVideo ? 'Auto' : 'Audio only';
  const options = RECEIVE_RESOLUTIONS.map((label) =>
    h(
      'li',
      {
        role: 'option',
        'aria-label': t(label),
        'aria-selected': String(label === current),
        onclick: () => {
          ui.incomingVideo = label !== 'Audio only';
          renderCall();
        },
      },
      h('span', {}, t(label)),
    ),
  );
  const panel =
    ui.settingsTab === 'video'
      ? h(
          'div',
          { role: 'tabpanel' },
          h('h3', {}, t('Receive resolution (maximum)')),
          h('ul', { role: 'listbox', 'aria-label': t('Receive resolution (maximum)') }, options),
        )
      : h('div', { role: 'tabpanel' }, h('h3', {}, t('Microphone')), h('h3', {}, t('Speakers')));
  return h(
    'div',
    { class: 'scrim' },
    h(
      'div',
      { role: 'dialog', 'aria-modal': 'true', 'aria-label': t('Settings'), class: 'dialog settings' },
      h(
        'button',
        {
          type: 'button',
          'aria-label': t('Close dialog'),
          onclick: () => {
            ui.settingsTab = null;
            renderCall();
          },
        },
        h('i', { class: 'google-material-icons', 'aria-hidden': 'true' }, 'close'),
      ),
      h('div', { role: 'tablist' }, tab('audio', t('Audio')), tab('video', t('Video'))),
      panel,
    ),
  );
}

function renderCall() {
  const main = h(
    'main',
    { class: 'call' },
    h('div', { class: 'grid' }, ...presentParticipants(ui).map(tile), selfTile()),
    ui.peopleOpen && peoplePanel(),
    chat.attach(),
  );
  const parts = [main, toolbar()];
  if (ui.moreOpen) parts.push(moreOptionsMenu());
  if (ui.settingsTab) parts.push(settingsDialog());
  if (ui.state === 'admitted')
    parts.push(ui.meeting.traps.consentDialog ? consentDialog() : recordingDialog());
  show(app, parts);
  if (ui.toolbarTimer === undefined) armToolbarAutoHide();
}

function recordingDialog() {
  return dialog({
    titleId: 'recording-title',
    title: t('This video call is being recorded'),
    text: t(
      'By joining, you consent to being recorded. Everyone in the call can see that it is being recorded.',
    ),
    actions: [
      button(t('Leave'), () => ui.session.act({ type: 'leave', via: 'dialog_leave' })),
      button(t('Join now'), () => ui.session.act({ type: 'accept-dialog' })),
    ],
  });
}

/**
 * The trap: Meet's recording-consent dialog is a Material (MDC) alert dialog; its confirm button is
 * known by `data-mdc-dialog-action="ok"`, its label changes between releases and languages.
 */
function consentDialog() {
  const action = (value, label, onclick) =>
    h(
      'button',
      { type: 'button', class: 'mdc-button mdc-dialog__button', 'data-mdc-dialog-action': value, onclick },
      h('span', { class: 'mdc-button__label' }, label),
    );
  return h(
    'div',
    { class: 'mdc-dialog mdc-dialog--open scrim' },
    h(
      'div',
      {
        class: 'mdc-dialog__surface dialog',
        role: 'alertdialog',
        'aria-modal': 'true',
        'aria-labelledby': 'consent-title',
      },
      h('h2', { class: 'mdc-dialog__title', id: 'consent-title' }, t('This video call is being recorded')),
      h(
        'div',
        { class: 'mdc-dialog__content' },
        t('Everyone in the call is being recorded. By staying, you agree to be recorded.'),
      ),
      h(
        'div',
        { class: 'mdc-dialog__actions actions' },
        action('cancel', t('Leave meeting'), () => ui.session.act({ type: 'leave', via: 'dialog_leave' })),
        action('ok', t('Agree and continue'), () => ui.session.act({ type: 'accept-dialog' })),
      ),
    ),
  );
}

function onLeaveCall() {
  if (ui.state === 'lobby') {
    ui.session.act({ type: 'leave', via: 'leave_button' });
    return;
  }
  if (!ui.meeting.traps.leaveConfirmation) {
    ui.session.act({ type: 'leave', via: 'leave_button' });
    return;
  }
  app.append(
    dialog({
      title: t('Leave call?'),
      actions: [
        button(t('Just leave the meeting'), () => ui.session.act({ type: 'leave', via: 'leave_button' })),
        button(t('End meeting'), () => ui.session.act({ type: 'leave', via: 'leave_button' })),
      ],
    }),
  );
}

/**
 * The trap: with the pointer idle the toolbar becomes invisible (so clicks on it wait or fail)
 * and stays hidden across re-renders until the pointer moves.
 */
function armToolbarAutoHide() {
  const seconds = ui.meeting?.traps.toolbarAutoHideSeconds;
  if (!seconds) return;
  ui.toolbarHidden = false;
  document.querySelector('.toolbar')?.classList.remove('hidden');
  clearTimeout(ui.toolbarTimer);
  ui.toolbarTimer = setTimeout(() => {
    ui.toolbarHidden = true;
    document.querySelector('.toolbar')?.classList.add('hidden');
  }, seconds * 1000);
}
document.addEventListener('mousemove', armToolbarAutoHide);

/** The class a speaking tile gets: this page load's generated one, or a known real one. */
function tileSpeakingClass() {
  const chosen = ui.meeting.speaking.tileClass;
  return chosen === 'generated' ? speakingClass : chosen;
}

function showLevel(participantId, level) {
  const participant = ui.meeting.participants.find((p) => p.id === participantId);
  if (!participant) return;
  const speaking = level > SPEAKING_THRESHOLD;
  const tileElement = document.querySelector(`.tile[data-participant-id="${participant.deviceId}"]`);
  if (tileElement) {
    if (showsSignal(ui.meeting, 'tile_class')) tileElement.classList.toggle(tileSpeakingClass(), speaking);
    if (showsSignal(ui.meeting, 'audio_level'))
      tileElement.querySelector('.level')?.setAttribute('data-audio-level', String(Math.round(level * 10)));
  }
  const row = document.querySelector(`.people [data-participant-id="${participant.deviceId}"] .mic-level`);
  if (row && showsSignal(ui.meeting, 'people_panel'))
    row.style.opacity = speaking ? String(0.4 + level * 0.6) : '0';
}

// ---- chat ----

/**
 * The "In-call messages" panel. Consecutive messages of one sender share one header (name and
 * clock time) and each message is a `data-message-id` element without the name, so a bot must
 * look back to the group's header; the page's own messages are headed "You".
 */
function drawChat(panel) {
  const list = panel.element.querySelector('.chat-messages');
  const groups = [];
  for (const message of ui.chat) {
    const sender = message.mine ? t('You') : message.sender;
    const last = groups.at(-1);
    if (last && last.sender === sender) last.messages.push(message);
    else groups.push({ sender, at: message.at, messages: [message] });
  }
  list.replaceChildren(
    ...groups.map((group) =>
      h(
        'div',
        { class: 'chat-group' },
        h(
          'div',
          { class: 'chat-header' },
          h('span', { class: 'chat-sender' }, group.sender),
          h('span', { class: 'chat-time' }, panel.clockTime(group.at)),
        ),
        h(
          'div',
          { class: 'chat-body' },
          ...group.messages.map((message) =>
            h(
              'div',
              { class: 'chat-message', 'data-message-id': `${ui.meeting.spaceId}/messages/${message.id}` },
              h('div', { class: 'chat-text' }, message.text),
            ),
          ),
        ),
      ),
    ),
  );
}

function buildChat(panel) {
  const input = h('textarea', {
    'aria-label': t('Send a message'),
    placeholder: t('Send a message'),
    rows: '1',
  });
  const send = h(
    'button',
    { type: 'button', 'aria-label': t('Send a message'), 'data-tooltip': t('Send message'), disabled: true },
    h('i', { class: 'google-material-icons', 'aria-hidden': 'true' }, 'send'),
  );
  const clear = () => {
    input.value = '';
    send.disabled = true;
  };
  input.addEventListener('input', () => {
    panel.draft = input.value;
    send.disabled = input.value.trim() === '';
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      panel.send(clear);
    }
  });
  send.addEventListener('click', () => panel.send(clear));
  return h(
    'aside',
    { class: 'chat', 'aria-label': t('Side panel') },
    h('h2', {}, t('In-call messages')),
    h(
      'p',
      { class: 'chat-notice' },
      t('Messages can only be seen by people in the call and are deleted when the call ends.'),
    ),
    h('div', { class: 'chat-messages', 'aria-live': 'polite' }),
    h('div', { class: 'chat-compose' }, input, send),
  );
}

const chat = new ChatPanel(ui, { build: buildChat, draw: drawChat });

// ---- wiring ----

function render() {
  switch (ui.state) {
    case 'prejoin':
      return renderPreJoin();
    case 'lobby':
      return renderLobby();
    case 'admitted':
    case 'in_call':
      return renderCall();
    case 'denied':
      // The trap: the refusal shows only the line a leave shows, nothing else.
      if (ui.meeting.traps.deniedAsLeft) return messageScreen(t('You left the meeting'), null);
      return renderRefused('Someone in the call denied your request to join');
    case 'timed_out':
      return renderRefused('No one responded to your request to join the call');
    case 'left':
      return messageScreen(
        t('You left the meeting'),
        null,
        button(t('Rejoin'), () => ask()),
        homeButton(),
      );
    case 'blocked':
      if (ui.refusal === 'verification') return renderUnusualTraffic();
      return messageScreen(
        t("You can't join this video call"),
        t('There is a problem connecting to this video call. Try again, or contact the meeting organizer.'),
        homeButton(),
      );
    case 'removed':
      return messageScreen(t("You've been removed from the meeting"), null, homeButton());
    case 'ended':
      return messageScreen(t('Your host ended the meeting for everyone'), t('The call ended'), homeButton());
  }
}

/** The trap: the toggles chosen before joining are reset to on when admitted. */
function resetTogglesOnAdmission(state, previous) {
  if (state === 'in_call' && ui.meeting.traps.resetTogglesOnAdmission && previous !== 'in_call') {
    ui.micOn = true;
    ui.cameraOn = true;
    ui.session.act({ type: 'toggles', micOn: true, cameraOn: true });
  }
}

function start() {
  show(app, h('main', { class: 'message' }, h('p', {}, 'Getting ready…')));
  if (!MEET_CODE.test(code)) {
    renderNotFound('unknown');
    return;
  }
  connectMeetingPage(ui, {
    platform: 'google_meet',
    id: code,
    showLevel,
    render,
    notFound: (data) => renderNotFound(data.reason),
    found: (data, first) => {
      if (first && ui.meeting.traps.interstitials && data.state === 'prejoin') ui.interstitialStep = 2;
      if (first && ui.meeting.traps.peoplePanelOpen) ui.peopleOpen = true;
    },
    stateChanging: resetTogglesOnAdmission,
    chat: () => chat.received(),
    participants: (data) => {
      ui.present = data.present;
      if (showsCall(ui)) renderCall();
      else if (ui.state === 'lobby') refreshToolbar();
      const who = document.querySelector('.who-is-here');
      if (who) who.textContent = whoIsHere();
    },
  });
}

start();
