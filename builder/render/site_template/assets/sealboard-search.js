/* Sealboard: the search index loads when search is opened, not with every page.
 *
 * The build (builder/render/search_index.py) writes Material's search index without its
 * documents (search/search_index.json, and search/search_index.js which Material reads on
 * file:// pages) and the documents as a script, search/search_docs.js (a script loads from
 * disk as well as over HTTP). Material fetches the small index at start-up and posts it to
 * its search worker; this wrapper holds that one message until the visitor opens search
 * (focuses the search box, or toggles it with a shortcut), then loads the documents, puts
 * them in the message and posts it. Material's UI says "Initializing search" until then.
 * Loaded in the page head (extra.polyfills) after iframe-worker.js, before Material's bundle.
 */
(function () {
  "use strict";
  var Base = window.Worker;
  if (typeof Base !== "function") return;
  var here = document.currentScript && document.currentScript.src;
  var docsUrl = here ? new URL("../search/search_docs.js", here).href : null;
  var opened = null;
  var whenOpened = new Promise(function (resolve) { opened = resolve; });

  function loadDocs() {
    return new Promise(function (resolve, reject) {
      if (window.__sealboard_search_docs) return resolve(window.__sealboard_search_docs);
      var script = document.createElement("script");
      script.src = docsUrl;
      script.onload = function () { resolve(window.__sealboard_search_docs || []); };
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }

  function isDeferredSetup(message) {
    // Material's SETUP message (type 0) of an index the build wrote without documents.
    return message && message.type === 0 && message.data && Array.isArray(message.data.docs) && message.data.docs.length === 0 && docsUrl;
  }

  function SearchWorker(url, options) {
    var worker = new Base(url, options);
    if (String(url).indexOf("/workers/search.") < 0) return worker;
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
