// The page's link to the simulator: an event stream in, ordered action reports out.
// The session id lives in sessionStorage so a reload of the same tab (Teams' mid-join reload)
// stays the same bot, while a new tab is a new one.

function sessionIdFor(platform, id) {
  const key = `sim-session:${platform}:${id}`;
  let sid = sessionStorage.getItem(key);
  if (!sid) {
    sid = crypto.randomUUID();
    sessionStorage.setItem(key, sid);
  }
  return sid;
}

export class SimSession {
  constructor({ platform, id, passcode }) {
    this.platform = platform;
    this.id = id;
    this.sid = sessionIdFor(platform, id);
    this.passcode = passcode;
    this.queue = Promise.resolve();
  }

  /** handlers: { hello(data), state(data), participants(data), play(data), stop(data), chat(data) } */
  connect(handlers) {
    const query = new URLSearchParams({ sid: this.sid, platform: this.platform, id: this.id });
    if (this.passcode) query.set('p', this.passcode);
    this.events = new EventSource(`/_sim/events?${query}`);
    for (const name of ['hello', 'state', 'participants', 'play', 'stop', 'chat']) {
      this.events.addEventListener(name, (event) => handlers[name]?.(JSON.parse(event.data)));
    }
  }

  /** Reports in the order they happened, so "started" never lands after "ended". */
  act(action) {
    const send = () =>
      fetch(`/_sim/meetings/${this.id}/sessions/${this.sid}/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(action),
        keepalive: true,
      }).then(async (response) => {
        if (!response.ok) console.warn('simulator refused', action.type, await response.text());
      });
    this.queue = this.queue.then(send, send);
    return this.queue;
  }
}
