import { render } from 'preact';
import { App } from './views/App.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
