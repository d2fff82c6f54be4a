// Calendar — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'calendar', label: 'Calendar', pkg: 'com.android.calendar', icon: '📅', color: '#4285f4',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Calendar', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.calendar/.AllInOneActivity',
});
