import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiClient } from '../api/client.js';
import { forgetKey, storedKey, storeKey } from '../api/session.js';
import { useRoute } from '../router.js';
import { MeetingPage } from './MeetingPage.js';
import { MeetingsPage } from './MeetingsPage.js';
import { SignIn } from './SignIn.js';

export function App() {
  const [key, setKey] = useState(storedKey);
  const [notice, setNotice] = useState<string>();
  const route = useRoute();
  const api = useMemo(
    () =>
      key
        ? apiClient(key, () => {
            forgetKey();
            setKey(undefined);
            setNotice('Your API key is no longer accepted. Sign in again.');
          })
        : undefined,
    [key],
  );
  const main = useRef<HTMLElement>(null);
  const firstPage = useRef(true);
  // Going to another page moves the focus to its content, as a page load would (screen readers, keyboards).
  useEffect(() => {
    if (firstPage.current) firstPage.current = false;
    else main.current?.focus({ preventScroll: true });
  }, [route.page, route.page === 'meeting' ? route.id : 0]);

  const signOut = () => {
    forgetKey();
    setKey(undefined);
    setNotice('Signed out.');
    location.hash = '#/';
  };

  return (
    <>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class="bar">
        <a class="brand" href="#/">
          Meetbot
        </a>
        {api && (
          <nav aria-label="Account">
            <a href="#/">Meetings</a>
            <button type="button" class="link" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {!api ? (
          <SignIn
            notice={notice}
            onSignedIn={(newKey) => {
              storeKey(newKey);
              setNotice(undefined);
              setKey(newKey);
            }}
          />
        ) : route.page === 'meeting' ? (
          <MeetingPage key={route.id} api={api} id={route.id} />
        ) : (
          <MeetingsPage api={api} />
        )}
      </main>
    </>
  );
}
