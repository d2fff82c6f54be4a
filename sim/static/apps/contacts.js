// Contacts — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'contacts', label: 'Contacts', pkg: 'com.android.contacts', icon: '👤', color: '#1e8e3e',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Contacts', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.contacts/.activities.PeopleActivity',
});
