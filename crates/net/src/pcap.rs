//! libpcap capture files of chosen links.
