// page_writer: the report page as one HTML string: the page's own HTML, CSS and JavaScript
// (report/page/, compiled in), a text summary that reads without scripts, and the profile as
// inert JSON in <script type="application/json" id="profile">.
#pragma once

#include <cstddef>
#include <string>

#include "report/page_model.hpp"
#include "report/recording_facts.hpp"

namespace arec::report {

// The data block's JSON: {"v":1,"facts":{...},"type","unit","total" (the default event's),
// "buckets","bucketNs" (time buckets: how many, how long),"defaultEvent","events":[{"name","unit","base" (true for --diff BASE's)}],"strings":[...],"prefix":[...],
// "nodes":{"name","depth"},"kernel":[kernel frames' nodes],"threads":{"name","pid","tid","container" (-1: none)},
// "scale","rows":{"node" (each the step from the previous row's),"thread","event" (left out
// when there is one event),"bucket" (left out with fewer than two buckets),"weight" (times
// scale)}}, columns as arrays of integers. Every string goes through append_json_string.
std::string page_data_json(const page_model& model, const recording_facts& facts);

// The summary as HTML: the facts, then the `top` functions by self and by total weight with
// their shares of the total ("41.27%", as go tool pprof -top prints them).
std::string page_summary_html(const page_model& model, const recording_facts& facts,
                              std::size_t top = 20);

// The whole page.
std::string page_html(const page_model& model, const recording_facts& facts);

// "41.27%": `part` of `whole` with two decimals; "0.00%" when whole is 0.
std::string share_text(std::int64_t part, std::int64_t whole);

}  // namespace arec::report
