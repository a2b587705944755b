// The host's view: every meeting, where its bot is, and the control API's actions as buttons.
import { h, show } from '../common/dom.js';

const EXAMPLE = {
  platform: 'google_meet',
  admission: { policy: 'host' },
  participants: [
    { name: 'Alice Martin', utterances: [{ at: 1, text: 'Good morning everyone, shall we start?' }] },
    { name: 'Bob Chen', utterances: [{ at: 5, text: 'Yes, I have the numbers for last week.' }] },
  ],
};

const scriptField = document.getElementById('script');
scriptField.value = JSON.stringify(EXAMPLE, null, 2);

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error((await response.json()).error);
  return response.status === 204 ? null : response.json();
}

document.getElementById('create').addEventListener('click', async () => {
  const errorBox = document.getElementById('create-error');
  errorBox.textContent = '';
  try {
    await call('POST', '/api/meetings', JSON.parse(scriptField.value));
    refresh();
  } catch (error) {
    errorBox.textContent = String(error.message);
  }
});

function actionButton(meeting, label, action) {
  return h(
    'button',
    {
      type: 'button',
      onclick: () =>
        call('POST', `/api/meetings/${meeting.id}/${action}`)
          .catch((error) => alert(error.message))
          .then(refresh),
    },
    label,
  );
}

function meetingCard(meeting) {
  const bot = meeting.bot;
  return h(
    'section',
    { class: 'meeting' },
    h(
      'h2',
      {},
      `${{ teams: 'Teams', zoom: 'Zoom', google_meet: 'Google Meet' }[meeting.platform] ?? meeting.platform} ${meeting.id} (${meeting.status})`,
    ),
    h('div', {}, h('a', { href: meeting.url, target: '_blank' }, meeting.url)),
    h(
      'p',
      {},
      'Bot: ',
      h('span', { class: 'state' }, bot.state),
      bot.name ? ` as “${bot.name}”` : '',
      bot.leaveReason ? ` (${bot.leaveReason})` : '',
      bot.audioTransport ? ` · audio via ${bot.audioTransport}` : '',
      ` · admission: ${meeting.admission.policy}`,
    ),
    h(
      'div',
      {},
      actionButton(meeting, 'Admit', 'admit'),
      actionButton(meeting, 'Deny', 'deny'),
      actionButton(meeting, 'Remove bot', 'remove-bot'),
      actionButton(meeting, 'Everyone leaves', 'everyone-leaves'),
      actionButton(meeting, 'End meeting', 'end'),
      h(
        'button',
        { type: 'button', onclick: () => call('DELETE', `/api/meetings/${meeting.id}`).then(refresh) },
        'Delete',
      ),
    ),
    h(
      'table',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'who'),
        h('th', {}, 'at'),
        h('th', {}, 'text'),
        h('th', {}, 'status'),
        h('th', {}, 'played'),
      ),
      meeting.utterances.map((u) =>
        h(
          'tr',
          {},
          h('td', {}, u.speaker),
          h('td', {}, `${u.at}s`),
          h('td', {}, u.text),
          h('td', {}, u.status),
          h('td', {}, u.startedAt ? new Date(u.startedAt).toLocaleTimeString() : ''),
        ),
      ),
    ),
  );
}

async function refresh() {
  try {
    const { meetings } = await call('GET', '/api/meetings');
    show(
      document.getElementById('meetings'),
      meetings.length ? meetings.map(meetingCard) : h('p', {}, 'No meetings yet.'),
    );
  } catch {
    // The next poll retries; the server may be restarting.
  }
}

refresh();
setInterval(refresh, 1000);
