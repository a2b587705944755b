// Meet's texts in German (the `locale: 'de'` trap), keyed by the English text. "Teilnahme
// anfordern" and "Jetzt teilnehmen" are the real page's (docs/platform-landmarks.md), and so, as far as
// we know, are the toolbar's "Mikrofon/Kamera aktivieren/deaktivieren"; the rest are our best
// rendering of Google's German wording, not copied from a page. bot/platforms/google-meet-screens.ts
// keeps the same texts. The not-found screens stay English: the page doesn't know the meeting there.

export const GERMAN = {
  'Send a message': 'Nachricht senden',
  'Send message': 'Nachricht senden',
  'Side panel': 'Seitenleiste',
  'In-call messages': 'Nachrichten im Anruf',
  'Messages can only be seen by people in the call and are deleted when the call ends.':
    'Nachrichten sind nur für Teilnehmer des Anrufs sichtbar und werden nach dem Anruf gelöscht.',
  'Return to home screen': 'Zurück zum Startbildschirm',
  'Turn off microphone': 'Mikrofon deaktivieren',
  'Turn on microphone': 'Mikrofon aktivieren',
  'Turn off camera': 'Kamera deaktivieren',
  'Turn on camera': 'Kamera aktivieren',
  'Camera is starting': 'Kamera wird gestartet',
  'Camera is off': 'Kamera ist deaktiviert',
  'No one else is here': 'Sonst ist niemand hier',
  '{0} is in this call': '{0} nimmt an diesem Anruf teil',
  '{0} and {1} are in this call': '{0} und {1} nehmen an diesem Anruf teil',
  'Sign in': 'Anmelden',
  'to continue to Google Meet': 'weiter zu Google Meet',
  'Email or phone': 'E-Mail oder Telefonnummer',
  'Forgot email?': 'E-Mail-Adresse vergessen?',
  Next: 'Weiter',
  'Your name': 'Ihr Name',
  "What's your name?": 'Wie heißen Sie?',
  'Ready to join?': 'Bereit zum Beitreten?',
  'Ask to join': 'Teilnahme anfordern',
  'Join now': 'Jetzt teilnehmen',
  'Ask to join anyway': 'Trotzdem Teilnahme anfordern',
  'Join anyway': 'Trotzdem teilnehmen',
  'Join here too': 'Auch hier teilnehmen',
  'Join the call now': 'Jetzt am Anruf teilnehmen',
  'Switch here': 'Hierher wechseln',
  'Do you want people to see and hear you in the meeting?':
    'Möchten Sie, dass andere Sie in der Besprechung sehen und hören?',
  'You can still turn off your microphone and camera anytime in the meeting':
    'Sie können Mikrofon und Kamera in der Besprechung jederzeit deaktivieren',
  'Continue without microphone and camera': 'Ohne Mikrofon und Kamera fortfahren',
  'Allow microphone and camera': 'Mikrofon und Kamera zulassen',
  'Others may see your video differently': 'Andere sehen Ihr Video möglicherweise anders',
  'Your video is shown as others will see it.': 'Ihr Video wird so angezeigt, wie andere es sehen.',
  'Got it': 'Verstanden',
  'Please wait until the meeting host admits you to the call':
    'Bitte warten Sie, bis der Organisator Sie zum Anruf zulässt',
  'Waiting to be let in…': 'Warten auf Einlass…',
  'Asking to be let in…': 'Teilnahme wird angefragt…',
  'You’ll join the call when someone lets you in': 'Sie nehmen am Anruf teil, sobald Sie jemand einlässt',
  'Please wait until a meeting host brings you into the call':
    'Bitte warten Sie, bis ein Organisator Sie zum Anruf hinzufügt',
  'Someone in the call denied your request to join':
    'Jemand im Anruf hat Ihre Anfrage zur Teilnahme abgelehnt',
  'No one responded to your request to join the call':
    'Niemand hat auf Ihre Anfrage zur Teilnahme am Anruf reagiert',
  'You left the meeting': 'Sie haben die Besprechung verlassen',
  'Ask to join again': 'Erneut Teilnahme anfordern',
  Rejoin: 'Erneut teilnehmen',
  'People - {0} joined': 'Personen - {0} Teilnehmer',
  'Turn on captions': 'Untertitel aktivieren',
  'Send a reaction': 'Reaktion senden',
  'Raise hand': 'Hand heben',
  'Present now': 'Jetzt präsentieren',
  'Share screen': 'Bildschirm teilen',
  'More options': 'Weitere Optionen',
  'Leave call': 'Anruf verlassen',
  'Meeting details': 'Besprechungsdetails',
  'Chat with everyone': 'Mit allen chatten',
  'Meeting tools': 'Besprechungstools',
  'Call controls': 'Anrufsteuerung',
  'More options for {0}': 'Weitere Optionen für {0}',
  'Pin {0} to your main screen': '{0} auf dem Hauptbildschirm fixieren',
  You: 'Sie',
  'Turn on your camera': 'Kamera aktivieren',
  '(You)': '(Sie)',
  People: 'Personen',
  Participants: 'Teilnehmer',
  'This video call is being recorded': 'Dieser Videoanruf wird aufgezeichnet',
  'By joining, you consent to being recorded. Everyone in the call can see that it is being recorded.':
    'Mit Ihrer Teilnahme stimmen Sie der Aufzeichnung zu. Alle im Anruf sehen, dass aufgezeichnet wird.',
  Leave: 'Verlassen',
  'Everyone in the call is being recorded. By staying, you agree to be recorded.':
    'Alle im Anruf werden aufgezeichnet. Wenn Sie bleiben, stimmen Sie der Aufzeichnung zu.',
  'Leave meeting': 'Besprechung verlassen',
  'Agree and continue': 'Zustimmen und fortfahren',
  'Leave call?': 'Anruf verlassen?',
  'Just leave the meeting': 'Besprechung nur verlassen',
  'End meeting': 'Besprechung beenden',
  "You can't join this video call": 'Sie können an diesem Videoanruf nicht teilnehmen',
  'There is a problem connecting to this video call. Try again, or contact the meeting organizer.':
    'Beim Verbinden mit diesem Videoanruf ist ein Problem aufgetreten. Versuchen Sie es noch einmal oder wenden Sie sich an den Organisator.',
  "You've been removed from the meeting": 'Sie wurden aus der Besprechung entfernt',
  'Your host ended the meeting for everyone': 'Der Organisator hat die Besprechung für alle beendet',
  'The call ended': 'Der Anruf wurde beendet',
  'Our systems have detected unusual traffic from your computer network.':
    'Unsere Systeme haben ungewöhnlichen Datenverkehr aus Ihrem Computernetzwerk festgestellt.',
  "This page checks to see if it's really you sending the requests, and not a robot.":
    'Auf dieser Seite wird überprüft, ob die Anfragen wirklich von Ihnen und nicht von einem Roboter gesendet werden.',
  "I'm not a robot": 'Ich bin kein Roboter',
};
