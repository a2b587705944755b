// Zoom's web client texts in German (the `locale: 'de'` trap), keyed by the English text. These are
// our best rendering of Zoom's German wording ("beitreten", "Kenncode", "Host"), not copied from a
// page; bot/platforms/zoom-screens.ts keeps the same texts, to be corrected from a real German page
// when one is seen. The landing page and the screens before the meeting is known stay English: the
// page doesn't know the meeting's language yet.

export const GERMAN = {
  'Click Open Zoom Workplace on the dialog shown by your browser':
    'Klicken Sie im Dialogfeld Ihres Browsers auf „Zoom Workplace öffnen“',
  'If you don\u2019t see a dialog, click Launch Meeting below':
    'Wenn Sie kein Dialogfeld sehen, klicken Sie unten auf „Meeting starten“',
  'Launch Meeting': 'Meeting starten',
  'Having issues with Zoom Workplace?': 'Probleme mit Zoom Workplace?',
  'Join from your browser': 'Über Ihren Browser beitreten',
  'This meeting ID is not valid. Please check and try again.':
    'Diese Meeting-ID ist ungültig. Bitte überprüfen Sie sie und versuchen Sie es erneut.',
  OK: 'OK',
  'Sign in to join this meeting': 'Melden Sie sich an, um diesem Meeting beizutreten',
  'The host requires authentication on the commercial Zoom platform to join this meeting':
    'Der Host verlangt eine Authentifizierung auf der kommerziellen Zoom-Plattform, um diesem Meeting beizutreten',
  'Sign In': 'Anmelden',
  'Join Meeting': 'Meeting beitreten',
  'Your Name': 'Ihr Name',
  'Meeting Passcode': 'Meeting-Kenncode',
  'Passcode wrong': 'Falscher Kenncode',
  Mute: 'Stummschalten',
  Unmute: 'Stummschaltung aufheben',
  'Stop Video': 'Video beenden',
  'Start Video': 'Video starten',
  'Remember my name for future meetings': 'Meinen Namen für zukünftige Meetings speichern',
  Join: 'Beitreten',
  'By clicking "Join", you agree to our Terms of Service and Privacy Statement':
    'Wenn Sie auf „Beitreten“ klicken, stimmen Sie unseren Nutzungsbedingungen und der Datenschutzerklärung zu',
  'Waiting for the host to start this meeting': 'Warten, bis der Host dieses Meeting startet',
  'Please wait, the meeting host will let you in soon.':
    'Bitte warten, der Meeting-Host lässt Sie gleich eintreten.',
  "{0}'s Zoom Meeting": 'Zoom-Meeting von {0}',
  Leave: 'Verlassen',
  'Leave Meeting': 'Meeting verlassen',
  'Meeting controls': 'Meeting-Steuerelemente',
  'join audio': 'Audio beitreten',
  'Join Audio': 'Audio beitreten',
  'Join Audio by Computer': 'Per Computer für Audio beitreten',
  'mute my microphone': 'mein Mikrofon stummschalten',
  'unmute my microphone': 'Stummschaltung meines Mikrofons aufheben',
  'stop my video': 'mein Video beenden',
  'start my video': 'mein Video starten',
  Participants: 'Teilnehmer',
  'open the participants list pane,[{0}] particpants': 'Teilnehmerliste öffnen,[{0}] Teilnehmer',
  Chat: 'Chat',
  'open the chat panel': 'Chatbereich öffnen',
  'More meeting control ': 'Weitere Meeting-Steuerelemente ',
  More: 'Mehr',
  'Participants ({0})': 'Teilnehmer ({0})',
  '(Me)': '(Ich)',
  '{0} joined the meeting': '{0} ist dem Meeting beigetreten',
  'Thank you for attending': 'Vielen Dank für Ihre Teilnahme',
  'The host has declined your request to join this meeting.': 'Der Host hat Ihre Beitrittsanfrage abgelehnt.',
  'No one admitted you to this meeting.': 'Niemand hat Sie zu diesem Meeting zugelassen.',
  'Please verify that you are not a robot': 'Bitte bestätigen Sie, dass Sie kein Roboter sind',
  'Check Captcha': 'Captcha prüfen',
  'You are unable to join this meeting': 'Sie können diesem Meeting nicht beitreten',
  'You have left the meeting': 'Sie haben das Meeting verlassen',
  Rejoin: 'Erneut beitreten',
  'You have been removed from this meeting by the host': 'Sie wurden vom Host aus diesem Meeting entfernt',
  'This meeting has been ended by host': 'Dieses Meeting wurde vom Host beendet',
};
