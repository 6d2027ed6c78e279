// Preact 10, its hooks and htm in one ES module, served from the htm package at /vendor.
export {
  html,
  render,
  h,
  createContext,
  useState,
  useReducer,
  useEffect,
  useLayoutEffect,
  useRef,
  useMemo,
  useCallback,
  useContext,
} from '/vendor/standalone.module.js';
