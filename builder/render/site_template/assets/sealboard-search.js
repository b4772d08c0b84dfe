/* Sealboard: the search index loads when search is opened, not with every page.
 *
 * The build (builder/render/search_index.py) writes Material's search index without its
 * documents (search/search_index.json, and search/search_index.js which Material reads on
 * file:// pages) and the documents as a script, search/search_docs.js (a script loads from
 * disk as well as over HTTP). Material fetches the small index at start-up and posts it to
 * its search worker; this wrapper holds that one message until the visitor opens search
 * (focuses the search box, or toggles it with a shortcut), then loads the documents, puts
 * them in the message and posts it. Material's UI says "Initializing search" until then.
 *
 * From disk (file://) browsers refuse a worker's file URL. The build writes the worker's
 * source, with the lunr languages it imports, as a script (search/search_worker.js,
 * builder/render/search_worker.py); when search is opened this wrapper loads it and starts
 * the worker from a blob: URL, which runs from disk, so lunr builds its index off the page's
 * thread as it does over HTTP. Until then Material talks to a stand-in (DiskWorker) that
 * holds its messages. (The iframe-worker shim this replaces ran the worker on the page's
 * thread: building the index froze the page for seconds.)
 * Loaded in the page head (extra.polyfills), before Material's bundle.
 */
(function () {
  "use strict";
  var Base = window.Worker;
  if (typeof Base !== "function") return;
  var here = document.currentScript && document.currentScript.src;
  var docsUrl = here ? new URL("../search/search_docs.js", here).href : null;
  var workerUrl = here ? new URL("../search/search_worker.js", here).href : null;
  var onDisk = location.protocol === "file:";
  var opened = null;
  var whenOpened = new Promise(function (resolve) { opened = resolve; });

  // The value a build script (search/*.js) assigns to window[name], loading it once.
  function loadGlobal(src, name, missing) {
    return new Promise(function (resolve, reject) {
      if (window[name]) return resolve(window[name]);
      var script = document.createElement("script");
      script.src = src;
      script.onload = function () { resolve(window[name] || missing); };
      script.onerror = function () { reject(new Error("Sealboard search: could not load " + src)); };
      document.head.appendChild(script);
    });
  }

  function loadDocs() {
    return loadGlobal(docsUrl, "__sealboard_search_docs", []);
  }

  // Material's search worker from disk: an EventTarget with a worker's postMessage and
  // terminate (what Material uses), whose real worker starts from a blob: URL of the
  // worker's source once search is opened; messages wait until then, in order.
  function DiskWorker() {
    var stand = new EventTarget(), queue = [], worker = null;
    stand.onmessage = null;
    stand.onerror = null;
    function relay(type, event) {
      var copy = type === "message" ? new MessageEvent("message", {data: event.data}) : new ErrorEvent("error", {message: event.message, error: event.error});
      stand.dispatchEvent(copy);
      var handler = type === "message" ? stand.onmessage : stand.onerror;
      if (handler) handler.call(stand, copy);
    }
    whenOpened.then(function () { return loadGlobal(workerUrl, "__sealboard_search_worker", null); }).then(function (source) {
      if (!source) throw new Error("Sealboard search: " + workerUrl + " holds no worker");
      worker = new Base(URL.createObjectURL(new Blob([source], {type: "text/javascript"})));
      worker.onmessage = function (e) { relay("message", e); };
      worker.onerror = function (e) { relay("error", e); };
      queue.splice(0).forEach(function (m) { worker.postMessage(m); });
    }).catch(function (error) {
      console.error(error);
      relay("error", {message: String(error), error: error});
    });
    stand.postMessage = function (message) { if (worker) worker.postMessage(message); else queue.push(message); };
    stand.terminate = function () { if (worker) worker.terminate(); queue.length = 0; };
    return stand;
  }

  function isDeferredSetup(message) {
    // Material's SETUP message (type 0) of an index the build wrote without documents.
    return message && message.type === 0 && message.data && Array.isArray(message.data.docs) && message.data.docs.length === 0 && docsUrl;
  }

  function SearchWorker(url, options) {
    if (String(url).indexOf("/workers/search.") < 0) return new Base(url, options);
    var worker = onDisk && workerUrl ? DiskWorker() : new Base(url, options);
    var post = worker.postMessage.bind(worker);
    worker.postMessage = function (message) {
      if (!isDeferredSetup(message)) return post(message);
      whenOpened.then(loadDocs).then(function (docs) {
        message.data.docs = docs;
        post(message);
      });
    };
    return worker;
  }
  SearchWorker.prototype = Base.prototype;
  window.Worker = SearchWorker;

  function open() { if (opened) { opened(); opened = null; } }
  document.addEventListener("focusin", function (e) {
    if (e.target && e.target.classList && e.target.classList.contains("md-search__input")) open();
  });
  document.addEventListener("change", function (e) {
    if (e.target && e.target.id === "__search" && e.target.checked) open();
  });
})();
