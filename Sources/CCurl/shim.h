#ifndef REPLAN_CCURL_SHIM_H
#define REPLAN_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   These typed wrappers give each argument type its own entry point. */
static inline CURLcode replan_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode replan_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode replan_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode replan_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode replan_curl_setopt_offt(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*replan_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode replan_curl_setopt_data_callback(CURL *h, CURLoption o, replan_curl_data_callback v) { return curl_easy_setopt(h, o, v); }
typedef int (*replan_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode replan_curl_setopt_xferinfo_callback(CURL *h, CURLoption o, replan_curl_xferinfo_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode replan_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode replan_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }

/* Only http and https may be spoken, whatever URL a configuration carries. CURLOPT_PROTOCOLS_STR
   replaced the bitmask option in 7.85 (which then became deprecated); build machines may carry
   either, so the choice is made here at compile time instead of in Swift. */
static inline CURLcode replan_curl_allow_only_http(CURL *h) {
#if LIBCURL_VERSION_NUM >= 0x075500
    return curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    return curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}
#endif
