// The simulated parallel file system (mcio_sim_storage.h), on SimGrid's s4u API.
#include "mcio_sim_storage.h"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct storage {
    bool loaded = false;
    int64_t stripe = 1 << 20;
    std::vector<sg4::Host*> host;
    std::vector<sg4::Disk*> disk;
    int status = 0; // number of targets, or -1
};

// One per rank: SMPI privatizes the program's globals, this one included.
storage the_storage;

storage& load()
{
    storage& s = the_storage;
    if (s.loaded)
        return s;
    s.loaded = true;
    auto* root = sg4::Engine::get_instance()->get_netzone_root();
    if (const char* v = root->get_property("mcio_stripe_size"))
        if (long long x = std::atoll(v); x > 0)
            s.stripe = x;
    const char* names = root->get_property("mcio_storage");
    std::string list = names ? names : "";
    for (size_t at = 0; at < list.size();) {
        size_t end = list.find(',', at);
        if (end == std::string::npos)
            end = list.size();
        sg4::Host* h = sg4::Host::by_name_or_null(list.substr(at, end - at));
        if (!h || h->get_disks().empty()) {
            s.status = -1;
            return s;
        }
        s.host.push_back(h);
        s.disk.push_back(h->get_disks().front());
        at = end + 1;
    }
    s.status = (int)s.host.size();
    return s;
}

} // namespace

extern "C" int mcio_sim_storage_targets(int64_t* stripe)
{
    storage& s = load();
    *stripe = s.stripe;
    return s.status;
}

namespace {

// An access in flight: the disk requests and transfers it started.
struct pending_access {
    double start;
    std::vector<sg4::ActivityPtr> pending;
};

} // namespace

extern "C" void* mcio_sim_storage_start(int write, int64_t len, int64_t off, int64_t stripe)
{
    storage& s = load();
    if (s.status <= 0 || stripe <= 0)
        return nullptr;
    size_t n = s.host.size();
    std::vector<uint64_t> bytes(n, 0);
    auto* a = new pending_access;
    a->start = sg4::Engine::get_clock();
    for (int64_t at = off; at < off + len;) {
        int64_t stripe_end = (at / stripe + 1) * stripe;
        int64_t piece = (stripe_end < off + len ? stripe_end : off + len) - at;
        size_t t = (size_t)((at / stripe) % (int64_t)n);
        bytes[t] += (uint64_t)piece;
        a->pending.push_back(write ? s.disk[t]->write_async((sg_size_t)piece)
                                   : s.disk[t]->read_async((sg_size_t)piece));
        at += piece;
    }
    sg4::Host* self = sg4::Host::current();
    for (size_t t = 0; t < n; t++)
        if (bytes[t] > 0 && s.host[t] != self)
            a->pending.push_back(write ? sg4::Comm::sendto_async(self, s.host[t], bytes[t])
                                       : sg4::Comm::sendto_async(s.host[t], self, bytes[t]));
    return a;
}

extern "C" double mcio_sim_storage_wait(void* handle)
{
    auto* a = static_cast<pending_access*>(handle);
    double end = a->start;
    for (auto& x : a->pending) {
        x->wait();
        end = std::max(end, x->get_finish_time());
    }
    double took = end - a->start;
    delete a;
    return took;
}

extern "C" int mcio_sim_storage_access(int write, int64_t len, int64_t off, int64_t stripe)
{
    void* a = mcio_sim_storage_start(write, len, off, stripe);
    if (!a)
        return -1;
    mcio_sim_storage_wait(a);
    return 0;
}
