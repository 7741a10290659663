use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
fn main() {
    let mut a = std::env::args().skip(1);
    let addr: SocketAddr = a.next().unwrap().parse().unwrap();
    let tool = a.next().unwrap();
    let args = a.next().unwrap();
    let n: usize = a.next().unwrap().parse().unwrap();
    for _round in 0..3 {
        let next = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let hs: Vec<_> = (0..64)
            .map(|_| {
                let next = Arc::clone(&next);
                let tool = tool.clone();
                let args = args.clone();
                std::thread::spawn(move || {
                    let mut c = mcpgraph_bench::http::Connection::open(addr).unwrap();
                    while next.fetch_add(1, Ordering::Relaxed) < n {
                        c.call(&tool, &args).unwrap();
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        println!("{:.0} calls/s", n as f64 / started.elapsed().as_secs_f64());
    }
}
