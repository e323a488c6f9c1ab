package dev.voicegateway.app.helper;

import android.os.Binder;
import android.os.Parcel;
import android.os.ParcelFileDescriptor;
import android.os.RemoteException;
import dev.voicegateway.core.helper.AnnouncedEndpoint;
import dev.voicegateway.core.helper.HelperChannel;
import java.io.IOException;

/**
 * The helper's Binder, announced to the app. Its one transaction, OPEN, checks the caller by the
 * uid Binder reports (and the process name the shell can read), then answers with one end of a
 * new socketpair and hands the other to the helper's service. The helper's binder threads serve it:
 * app_process starts a Binder thread pool for the program it runs (frameworks/base
 * cmds/app_process/app_main.cpp, AppRuntime::onStarted → ProcessState::startThreadPool).
 */
final class HelperBinder extends Binder {
    private volatile AnnouncedEndpoint endpoint;

    /** Set once, before the Binder is announced. */
    void serve(AnnouncedEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    protected boolean onTransact(int code, Parcel data, Parcel reply, int flags) throws RemoteException {
        if (code != HelperChannel.OPEN) return super.onTransact(code, data, reply, flags);
        data.enforceInterface(HelperChannel.DESCRIPTOR);
        // As AIDL's stubs do: the reply starts with "no exception", so that one thrown here (Binder
        // writes it in place of the reply) reaches the app as itself.
        reply.writeNoException();
        int uid = Binder.getCallingUid();
        String process = ProcessNames.of(Binder.getCallingPid());
        AnnouncedEndpoint e = endpoint;
        String refusal = e == null ? "the helper is starting" : e.admit(uid, process);
        if (refusal != null) {
            reply.writeInt(HelperChannel.REFUSED);
            reply.writeString(refusal);
            return true;
        }
        ParcelFileDescriptor[] pair;
        try {
            pair = ParcelFileDescriptor.createSocketPair();
        } catch (IOException failure) {
            reply.writeInt(HelperChannel.REFUSED);
            reply.writeString("no socketpair: " + failure.getMessage());
            return true;
        }
        e.opened(new FdConnection(pair[0], uid, process));
        reply.writeInt(HelperChannel.OPENED);
        // Parcel.writeFileDescriptor duplicates the descriptor into the reply; ours is closed here.
        reply.writeFileDescriptor(pair[1].getFileDescriptor());
        try {
            pair[1].close();
        } catch (IOException ignored) {
            // the reply holds its own copy
        }
        return true;
    }
}
