// Calculator — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'calculator', label: 'Calculator', pkg: 'com.android.calculator2', icon: '🧮', color: '#5f6368',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Calculator', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.calculator2/.Calculator',
});
