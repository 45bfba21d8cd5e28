// The one import a UI module needs for rendering: htm bound to Preact, and Preact's hooks.
export { html, render } from 'htm/preact';
export { Fragment, createContext } from 'preact';
export { useCallback, useContext, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
