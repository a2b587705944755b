// A tiny element builder: h('button', { 'aria-label': 'Leave call', onclick }, 'text', child).
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'class') element.className = value;
    else if (key === 'disabled') element.disabled = Boolean(value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replaces what a screen shows. */
export function show(container, ...children) {
  container.replaceChildren(...children.flat().filter(Boolean));
}

/**
 * A modal dialog over the page: a title (labelling the dialog when `titleId` is given), an
 * optional text, and the buttons that answer it.
 */
export function dialog({ titleId, title, text, actions }) {
  return h(
    'div',
    { class: 'scrim' },
    h(
      'div',
      { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId, class: 'dialog' },
      h('h2', { id: titleId }, title),
      text && h('p', {}, text),
      h('div', { class: 'actions' }, ...actions),
    ),
  );
}

/** Class names that change per page load, like the generated ones on the real sites. */
export function generatedClassName() {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  for (let i = 0; i < 6; i += 1) name += letters[Math.floor(Math.random() * letters.length)];
  return name;
}
