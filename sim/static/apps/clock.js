// Clock — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'clock', label: 'Clock', pkg: 'com.android.deskclock', icon: '⏰', color: '#1a73e8',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Clock', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.deskclock/.DeskClock',
});
