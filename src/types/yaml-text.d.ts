// The manifests install ships are bundled as text (esbuild's text loader; jest maps them
// the same way), so the plugin needs no repository checkout to install them.
declare module '*.yaml' {
  const text: string;
  export default text;
}
